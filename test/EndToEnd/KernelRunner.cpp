//===- KernelRunner.cpp - Run generated kernels and the reference ---------===//

#include "KernelRunner.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Compiler/GPU/RecurrentKernel.h"
#include "sympow/Emulator/Emulator.h"
#include "sympow/Emulator/Half.h"
#include "sympow/Reference/Forward.h"
#include "sympow/Reference/Rounding.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>

using namespace mlir;

namespace sympow::e2e {
namespace {

namespace ref = sympow::reference;

ref::InputType inputType(ElementKind dtype) {
  switch (dtype) {
  case ElementKind::BF16:
    return ref::InputType::BF16;
  case ElementKind::F16:
    return ref::InputType::F16;
  case ElementKind::F32:
    return ref::InputType::F32;
  }
  return ref::InputType::F32;
}

ref::Schedule scheduleOf(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::None:
    return ref::Schedule::None;
  case ScheduleKind::Uniform:
    return ref::Schedule::Uniform;
  case ScheduleKind::Learned:
    return ref::Schedule::Learned;
  case ScheduleKind::Warped:
    return ref::Schedule::Warped;
  case ScheduleKind::Blend:
    return ref::Schedule::Blend;
  }
  return ref::Schedule::None;
}

int64_t stateDim(const AttentionKernelSpec &s) {
  // C(d + p - 1, p)
  double dim = 1;
  for (int64_t i = 1; i <= s.p; ++i)
    dim = dim * (s.d - 1 + i) / i;
  return static_cast<int64_t>(std::llround(dim));
}

ref::LayerDesc describe(const AttentionKernelSpec &s, int64_t B, int64_t T,
                        bool state) {
  ref::LayerDesc desc;
  desc.shape = {B, T, s.hq, s.h, s.d, s.e};
  desc.power = static_cast<int>(s.p);
  desc.scale = s.effectiveScale();
  desc.rotary.base = s.rotaryBase;
  desc.rotary.rateScale = s.rateScale;
  desc.rotary.dims = s.rotaryDims;
  desc.rotary.layout = s.layout == RotaryLayout::Half
                           ? ref::RotaryLayout::Half
                           : ref::RotaryLayout::Interleaved;
  desc.schedule = scheduleOf(s.schedule);
  if (s.relativeSchedule())
    desc.warpLength = static_cast<double>(s.length);
  desc.hasLogG = s.hasLogG();
  desc.hasLogGamma = s.hasLogGamma();
  desc.formulation =
      state ? ref::Formulation::Recurrent : ref::Formulation::Attention;
  desc.inputType = ref::InputType::F64; // inputs arrive already rounded
  desc.wantFinalState = state;
  return desc;
}

ref::LayerInputs inputsOf(const AttentionKernelSpec &s, const LayerCase &c) {
  ref::LayerInputs in;
  in.q = ref::Tensor({c.B, c.T, s.hq, s.d}, c.q);
  in.k = ref::Tensor({c.B, c.T, s.h, s.d}, c.k);
  in.v = ref::Tensor({c.B, c.T, s.h, s.e}, c.v);
  if (s.hasLogG())
    in.logG = ref::Tensor({c.B, c.T, s.h}, c.logG);
  if (s.hasLogGamma())
    in.logGamma = ref::Tensor({s.h}, c.logGamma);
  if (s.hasBeta())
    in.beta = ref::Tensor({c.B, c.T, s.h}, c.beta);
  if (c.hasState)
    in.initialState = ref::State{
        ref::Tensor({c.B, s.h, stateDim(s), s.e}, c.s0),
        ref::Tensor({c.B, s.h, stateDim(s)}, c.z0),
        ref::Tensor({c.B, s.h}, c.c0)};
  return in;
}

/// Fills the parts of `c` that depend on the token count.
void randomTokens(const AttentionKernelSpec &s, LayerCase &c,
                  std::mt19937_64 &rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> gate(0.9, 1.0);
  auto fill = [&](std::vector<double> &x, int64_t n, auto draw) {
    x.resize(n);
    for (double &value : x)
      value = draw();
  };
  ref::InputType in = inputType(s.dtype);
  auto input = [&] { return ref::roundTo(in, normal(rng)); };
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  int64_t tokens = c.B * c.T;
  fill(c.q, tokens * s.hq * s.d, input);
  fill(c.k, tokens * s.h * s.d, input);
  fill(c.v, tokens * s.h * s.e, input);
  fill(c.logG, tokens * s.h, [&] { return f32(std::log(gate(rng))); });
  fill(c.logGamma, s.h, [&] { return f32(std::log(gate(rng))); });
  fill(c.beta, tokens * s.h, [&] { return f32(1 + std::tanh(normal(rng))); });
}

/// A kernel buffer in its declared element type.
class Buffer {
public:
  enum Kind { F32, BF16, F16, F64 };
  Buffer(Kind kind, const std::vector<double> &values)
      : kind(kind), count(values.size()) {
    bytes.resize(count * width());
    for (size_t i = 0; i < count; ++i)
      set(i, values[i]);
  }
  static Kind of(ElementKind dtype) {
    return dtype == ElementKind::BF16  ? BF16
           : dtype == ElementKind::F16 ? F16
                                       : F32;
  }
  std::vector<double> read() const {
    std::vector<double> out(count);
    for (size_t i = 0; i < count; ++i)
      out[i] = get(i);
    return out;
  }
  void *data() { return bytes.data(); }
  int64_t size() const { return static_cast<int64_t>(count); }

private:
  size_t width() const { return kind == F64 ? 8 : kind == F32 ? 4 : 2; }
  void set(size_t i, double x) {
    uint8_t *at = bytes.data() + i * width();
    if (kind == F64) {
      std::memcpy(at, &x, 8);
    } else if (kind == F32) {
      float f = static_cast<float>(x);
      std::memcpy(at, &f, 4);
    } else {
      uint16_t h = kind == BF16 ? emu::floatToBf16(static_cast<float>(x))
                                : emu::floatToHalf(static_cast<float>(x));
      std::memcpy(at, &h, 2);
    }
  }
  double get(size_t i) const {
    const uint8_t *at = bytes.data() + i * width();
    if (kind == F64) {
      double x;
      std::memcpy(&x, at, 8);
      return x;
    }
    if (kind == F32) {
      float f;
      std::memcpy(&f, at, 4);
      return f;
    }
    uint16_t h;
    std::memcpy(&h, at, 2);
    return kind == BF16 ? emu::bf16ToFloat(h) : emu::halfToFloat(h);
  }

  Kind kind;
  size_t count;
  std::vector<uint8_t> bytes;
};

/// Packed kernel arguments (docs/KernelABI.md): buffers as memref
/// descriptors expanded into five fields, then i64 scalars.
class PackedArgs {
public:
  void buffer(Buffer &b) {
    Descriptor &d = descriptors.emplace_back();
    d.allocated = d.aligned = b.data();
    d.size = b.size();
    for (void *field :
         {static_cast<void *>(&d.allocated), static_cast<void *>(&d.aligned),
          static_cast<void *>(&d.offset), static_cast<void *>(&d.size),
          static_cast<void *>(&d.stride)})
      packed.push_back(field);
  }
  void scalar(int64_t value) { packed.push_back(&scalars.emplace_back(value)); }
  void **data() { return packed.data(); }

private:
  struct Descriptor {
    void *allocated = nullptr, *aligned = nullptr;
    int64_t offset = 0, size = 0, stride = 1;
  };
  std::deque<Descriptor> descriptors; // stable addresses
  std::deque<int64_t> scalars;
  std::vector<void *> packed;
};

/// A module of generated kernels, JIT-compiled for the emulator, launched
/// as their `sympow.launch` metadata says.
class CompiledKernels {
public:
  /// `build` adds the kernels to the gpu.module it is given.
  explicit CompiledKernels(
      llvm::function_ref<void(OpBuilder &, gpu::GPUModuleOp)> build) {
    DialectRegistry registry;
    EmulatorJIT::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    OpBuilder b(&context);
    module = ModuleOp::create(b.getUnknownLoc());
    (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                       b.getUnitAttr());
    b.setInsertionPointToEnd(module->getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
    build(b, gpuModule);
    auto compiled = EmulatorJIT::compile(*module);
    if (!compiled)
      error = "JIT: " + llvm::toString(compiled.takeError());
    else
      jit = std::move(*compiled);
  }

  /// Launches kernel `name` on `buffers` (then B, T); "" or the problem.
  std::string launch(const char *name, const std::vector<Buffer *> &buffers,
                     int64_t B, int64_t T) {
    if (!error.empty())
      return error;
    gpu::GPUFuncOp fn;
    module->walk([&](gpu::GPUFuncOp f) {
      if (f.getName() == name)
        fn = f;
    });
    const emu::Kernel *kernel = jit->kernel(name);
    if (!fn || !kernel)
      return std::string("no kernel ") + name + " in the compiled module";
    auto meta = fn->getAttrOfType<DictionaryAttr>("sympow.launch");
    if (!meta)
      return std::string(name) + " has no sympow.launch metadata";
    auto block = cast<DenseI32ArrayAttr>(meta.get("block")).asArrayRef();
    int64_t tokens = cast<IntegerAttr>(meta.get("tokens_per_block")).getInt();
    int64_t gridY = cast<IntegerAttr>(meta.get("grid_y")).getInt();
    int64_t dynamicShared =
        cast<IntegerAttr>(meta.get("dynamic_shared_bytes")).getInt();
    PackedArgs args;
    for (Buffer *buffer : buffers)
      args.buffer(*buffer);
    args.scalar(B);
    args.scalar(T);
    emu::Dim3 grid{
        static_cast<uint32_t>(tokens ? (T + tokens - 1) / tokens : 1),
        static_cast<uint32_t>(gridY), static_cast<uint32_t>(B)};
    emu::Dim3 threads{static_cast<uint32_t>(block[0]),
                      static_cast<uint32_t>(block[1]),
                      static_cast<uint32_t>(block[2])};
    emu::LaunchResult result =
        emu::launch(*kernel, grid, threads, dynamicShared, args.data());
    return result.ok() ? "" : std::string(name) + ": " + result.message();
  }

private:
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<EmulatorJIT> jit;
  std::string error;
};

} // namespace

LayerCase randomLayer(const AttentionKernelSpec &spec, int64_t B, int64_t T,
                      unsigned seed, bool withState) {
  std::mt19937_64 rng(seed);
  LayerCase c;
  c.B = B;
  if (withState) {
    // A realistic state: the reference's after a short random prefix.
    LayerCase prefix;
    prefix.B = B;
    prefix.T = 3;
    randomTokens(spec, prefix, rng);
    ref::Result<ref::LayerOutputs> out = ref::forward(
        describe(spec, B, prefix.T, true), inputsOf(spec, prefix));
    if (out.isOk()) {
      c.hasState = true;
      auto toF32 = [](const std::vector<double> &x) {
        std::vector<double> y(x.size());
        for (size_t i = 0; i < x.size(); ++i)
          y[i] = static_cast<float>(x[i]);
        return y;
      };
      c.s0 = toF32(out->finalState->S.data);
      c.z0 = toF32(out->finalState->Z.data);
      c.c0 = out->finalState->c.data;
    }
  }
  c.T = T;
  randomTokens(spec, c, rng);
  return c;
}

ReferenceResult runReference(const AttentionKernelSpec &spec,
                             const LayerCase &layer) {
  ReferenceResult result;
  ref::Result<ref::LayerOutputs> out =
      ref::forward(describe(spec, layer.B, layer.T, layer.hasState),
                   inputsOf(spec, layer));
  if (out.isError()) {
    result.error = out.message();
    return result;
  }
  result.y = out->y.data;
  if (out->finalState) {
    result.s = out->finalState->S.data;
    result.z = out->finalState->Z.data;
    result.c = out->finalState->c.data;
  }
  return result;
}

namespace {
/// The optional f32 side inputs, in kernel argument order.
void sideInputs(const AttentionKernelSpec &spec, const LayerCase &layer,
                std::deque<Buffer> &store, std::vector<Buffer *> &buffers) {
  auto add = [&](Buffer::Kind kind, const std::vector<double> &values) {
    buffers.push_back(&store.emplace_back(kind, values));
  };
  if (spec.hasLogG())
    add(Buffer::F32, layer.logG);
  if (spec.hasLogGamma())
    add(Buffer::F32, layer.logGamma);
  if (spec.hasBeta())
    add(Buffer::F32, layer.beta);
}
} // namespace

KernelResult runAttention(const AttentionKernelSpec &spec,
                          const LayerCase &layer) {
  Buffer::Kind elem = Buffer::of(spec.dtype);
  std::deque<Buffer> store;
  std::vector<Buffer *> buffers;
  for (const std::vector<double> *x : {&layer.q, &layer.k, &layer.v})
    buffers.push_back(&store.emplace_back(elem, *x));
  sideInputs(spec, layer, store, buffers);
  Buffer &y = store.emplace_back(
      elem, std::vector<double>(layer.B * layer.T * spec.hq * spec.e, 0.0));
  buffers.push_back(&y);
  KernelResult result;
  CompiledKernels kernels([&](OpBuilder &b, gpu::GPUModuleOp m) {
    buildAttentionKernel(b, m, spec);
  });
  result.error = kernels.launch("attention", buffers, layer.B, layer.T);
  result.y = y.read();
  return result;
}

KernelResult runRecurrent(const AttentionKernelSpec &spec,
                          const LayerCase &layer) {
  Buffer::Kind elem = Buffer::of(spec.dtype);
  std::deque<Buffer> store;
  std::vector<Buffer *> buffers;
  for (const std::vector<double> *x : {&layer.q, &layer.k, &layer.v})
    buffers.push_back(&store.emplace_back(elem, *x));
  sideInputs(spec, layer, store, buffers);
  int64_t dim = stateDim(spec);
  auto orZeros = [](const std::vector<double> &x, int64_t n) {
    return x.empty() ? std::vector<double>(n, 0.0) : x;
  };
  Buffer &y = store.emplace_back(
      elem, std::vector<double>(layer.B * layer.T * spec.hq * spec.e, 0.0));
  Buffer &s = store.emplace_back(
      Buffer::F32, orZeros(layer.s0, layer.B * spec.h * dim * spec.e));
  Buffer &z =
      store.emplace_back(Buffer::F32, orZeros(layer.z0, layer.B * spec.h * dim));
  Buffer &c = store.emplace_back(Buffer::F64,
                                 orZeros(layer.c0, layer.B * spec.h));
  buffers.insert(buffers.end(), {&y, &s, &z, &c});
  KernelResult result;
  CompiledKernels kernels([&](OpBuilder &b, gpu::GPUModuleOp m) {
    buildRecurrentKernel(b, m, spec);
  });
  result.error = kernels.launch("recurrent", buffers, layer.B, layer.T);
  result.y = y.read();
  result.s = s.read();
  result.z = z.read();
  result.c = c.read();
  return result;
}

KernelResult runChunked(const AttentionKernelSpec &spec, int64_t chunk,
                        const LayerCase &layer) {
  Buffer::Kind elem = Buffer::of(spec.dtype);
  int64_t dim = stateDim(spec), B = layer.B, T = layer.T;
  int64_t N = (T + chunk - 1) / chunk, H = spec.h;
  std::deque<Buffer> store;
  auto buffer = [&](Buffer::Kind kind, std::vector<double> values) {
    return &store.emplace_back(kind, values);
  };
  auto zeros = [](int64_t n) { return std::vector<double>(n, 0.0); };
  auto orZeros = [&](const std::vector<double> &x, int64_t n) {
    return x.empty() ? zeros(n) : x;
  };
  Buffer *q = buffer(elem, layer.q), *k = buffer(elem, layer.k),
         *v = buffer(elem, layer.v);
  Buffer *logG = buffer(Buffer::F32, layer.logG),
         *logGamma = buffer(Buffer::F32, layer.logGamma),
         *beta = buffer(Buffer::F32, layer.beta);
  Buffer *y = buffer(elem, zeros(B * T * spec.hq * spec.e));
  Buffer *s = buffer(Buffer::F32, orZeros(layer.s0, B * H * dim * spec.e));
  Buffer *z = buffer(Buffer::F32, orZeros(layer.z0, B * H * dim));
  Buffer *c = buffer(Buffer::F64, orZeros(layer.c0, B * H));
  Buffer *counts = buffer(Buffer::F64, zeros(B * T * H));
  Buffer *dS = buffer(Buffer::F32, zeros(B * N * H * dim * spec.e));
  Buffer *dZ = buffer(Buffer::F32, zeros(B * N * H * dim));
  Buffer *decay = buffer(Buffer::F32, zeros(B * N * H));

  auto gates = [&](std::vector<Buffer *> list) {
    if (spec.hasLogG())
      list.push_back(logG);
    if (spec.hasLogGamma())
      list.push_back(logGamma);
    return list;
  };
  auto withCounts = [&](std::vector<Buffer *> list) {
    if (spec.rotates())
      list.push_back(counts);
    return list;
  };
  auto append = [](std::vector<Buffer *> list,
                   std::initializer_list<Buffer *> more) {
    list.insert(list.end(), more);
    return list;
  };

  CompiledKernels kernels([&](OpBuilder &b, gpu::GPUModuleOp m) {
    buildChunkedKernels(b, m, spec, chunk);
  });
  KernelResult result;
  std::vector<std::pair<const char *, std::vector<Buffer *>>> launches;
  if (spec.rotates())
    launches.push_back(
        {"chunk_counts", spec.hasBeta() ? std::vector<Buffer *>{beta, counts, c}
                                        : std::vector<Buffer *>{counts, c}});
  launches.push_back(
      {"chunk_states", append(withCounts(gates({k, v})), {dS, dZ, decay})});
  launches.push_back(
      {"chunk_scan", append(withCounts({s, z, c}), {dS, dZ, decay})});
  launches.push_back(
      {"chunk_output", append(withCounts(gates({q, k, v})), {dS, dZ, y})});
  for (auto &[name, buffers] : launches) {
    result.error = kernels.launch(name, buffers, B, T);
    if (!result.error.empty())
      return result;
  }
  result.y = y->read();
  result.s = s->read();
  result.z = z->read();
  result.c = c->read();
  return result;
}

double maxAbs(const std::vector<double> &x) {
  double m = 0;
  for (double v : x)
    m = std::max(m, std::abs(v));
  return m;
}

double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size() || a.empty())
    return std::numeric_limits<double>::infinity();
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = std::abs(a[i] - b[i]);
    if (std::isnan(d))
      return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

} // namespace sympow::e2e
