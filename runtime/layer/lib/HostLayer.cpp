//===- HostLayer.cpp - One layer call from host data ----------------------===//

#include "sympow/Runtime/HostLayer.h"

#include "sympow/Runtime/HostTensor.h"

using namespace sympow;
using namespace sympow::runtime;

namespace {

/// Device allocations released when the call ends, whatever happens.
class Staging {
public:
  explicit Staging(Backend &backend) : backend(backend) {}
  ~Staging() {
    for (DevicePtr ptr : owned)
      (void)backend.release(ptr);
  }

  Result<DevicePtr> allocate(size_t bytes) {
    Result<DevicePtr> ptr = backend.allocate(bytes ? bytes : 1);
    if (ptr.isOk())
      owned.push_back(ptr.value());
    return ptr;
  }

  /// Uploads `values` as `type`, checking the element count.
  Result<DevicePtr> upload(const char *name, ElementType type,
                           const std::vector<double> &values, size_t expected) {
    if (values.size() != expected)
      return Status::error(
          std::string("'") + name + "' has " + std::to_string(values.size()) +
          " values; the layer's shape needs " + std::to_string(expected));
    std::vector<uint8_t> bytes = encodeTensor(type, values);
    Result<DevicePtr> ptr = allocate(bytes.size());
    if (ptr.isError())
      return ptr;
    if (Status s =
            backend.copyToDevice(ptr.value(), bytes.data(), bytes.size());
        s.isError())
      return s;
    return ptr;
  }

  Result<std::vector<double>> download(ElementType type, DevicePtr ptr,
                                       size_t count) {
    std::vector<uint8_t> bytes(count * elementBytes(type));
    if (Status s = backend.copyToHost(bytes.data(), ptr, bytes.size());
        s.isError())
      return s;
    return decodeTensor(type, bytes.data(), count);
  }

private:
  Backend &backend;
  std::vector<DevicePtr> owned;
};

ElementType inputType(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return ElementType::BF16;
  case DType::F16:
    return ElementType::F16;
  case DType::F32:
    return ElementType::F32;
  }
  return ElementType::F32;
}

} // namespace

Result<HostOutputs> sympow::runtime::runLayerFromHost(Backend &backend,
                                                      KernelLibrary &library,
                                                      const LayerVariant &v,
                                                      const HostLayer &layer) {
  int64_t B = layer.B, T = layer.T, dim = v.stateDim();
  size_t tokens = static_cast<size_t>(B * T);
  ElementType elem = inputType(v.dtype);
  Staging staging(backend);
  LayerBuffers buffers;
  struct Input {
    const char *name;
    ElementType type;
    const std::vector<double> *values;
    size_t count;
    bool needed;
    DevicePtr *into;
  };
  bool state = v.formulation != Formulation::Attention;
  // A state not given starts at zero; one vector per part, they coexist.
  std::vector<double> zeros[3];
  auto orZeros = [&](const std::vector<double> &x, int part,
                     size_t n) -> const std::vector<double> * {
    if (!x.empty())
      return &x;
    zeros[part].assign(n, 0.0);
    return &zeros[part];
  };
  Input inputs[] = {
      {"q", elem, &layer.q, tokens * v.hq * v.d, true, &buffers.q},
      {"k", elem, &layer.k, tokens * v.h * v.d, true, &buffers.k},
      {"v", elem, &layer.v, tokens * v.h * v.e, true, &buffers.v},
      {"log_g", ElementType::F32, &layer.logG, tokens * v.h, v.hasLogG(),
       &buffers.logG},
      {"log_gamma", ElementType::F32, &layer.logGamma, size_t(v.h),
       v.hasLogGamma(), &buffers.logGamma},
      {"beta", ElementType::F32, &layer.beta, tokens * v.h, v.hasBeta(),
       &buffers.beta},
  };
  for (const Input &in : inputs) {
    if (!in.needed)
      continue;
    Result<DevicePtr> ptr =
        staging.upload(in.name, in.type, *in.values, in.count);
    if (ptr.isError())
      return ptr.status();
    *in.into = ptr.value();
  }
  size_t ySize = tokens * v.hq * v.e, sSize = B * v.h * dim * v.e,
         zSize = B * v.h * dim, cSize = B * v.h;
  Result<DevicePtr> y = staging.allocate(ySize * elementBytes(elem));
  if (y.isError())
    return y.status();
  buffers.y = y.value();
  if (state) {
    Input stateInputs[] = {
        {"S", ElementType::F32, orZeros(layer.s, 0, sSize), sSize, true,
         &buffers.s},
        {"Z", ElementType::F32, orZeros(layer.z, 1, zSize), zSize, true,
         &buffers.z},
        {"c", ElementType::F64, orZeros(layer.c, 2, cSize), cSize, true,
         &buffers.c},
    };
    for (const Input &in : stateInputs) {
      Result<DevicePtr> ptr =
          staging.upload(in.name, in.type, *in.values, in.count);
      if (ptr.isError())
        return ptr.status();
      *in.into = ptr.value();
    }
  }
  Result<size_t> neededBytes = layerWorkspaceBytes(v, B, T);
  if (neededBytes.isError())
    return neededBytes.status();
  size_t workspaceBytes = neededBytes.value();
  DevicePtr workspace = 0;
  if (workspaceBytes) {
    Result<DevicePtr> w = staging.allocate(workspaceBytes);
    if (w.isError())
      return w.status();
    workspace = w.value();
  }
  if (Status s = launchLayer(backend, library, v, buffers, B, T, workspace,
                             workspaceBytes, nullptr);
      s.isError())
    return s;
  if (Status s = backend.synchronize(nullptr); s.isError())
    return s;

  HostOutputs out;
  struct Output {
    ElementType type;
    DevicePtr ptr;
    size_t count;
    std::vector<double> *into;
  };
  std::vector<Output> outputs = {{elem, buffers.y, ySize, &out.y}};
  if (state)
    outputs.insert(outputs.end(),
                   {{ElementType::F32, buffers.s, sSize, &out.s},
                    {ElementType::F32, buffers.z, zSize, &out.z},
                    {ElementType::F64, buffers.c, cSize, &out.c}});
  for (const Output &o : outputs) {
    Result<std::vector<double>> values =
        staging.download(o.type, o.ptr, o.count);
    if (values.isError())
      return values.status();
    *o.into = std::move(values.value());
  }
  return out;
}
