//===- KernelRun.cpp - A layer on the generated kernels -------------------===//

#include "KernelRun.h"

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Runtime/CudaBackend.h"
#include "sympow/Runtime/EmulatorBackend.h"
#include "sympow/Runtime/HostLayer.h"

#include "llvm/Support/Error.h"

#include <cmath>
#include <unistd.h>

namespace sympow::run {

using reference::LayerDesc;
using reference::LayerInputs;
using reference::LayerOutputs;
using reference::Result;
using reference::Status;

namespace {

/// The reference's schedule as the dialect's (the same five, by value).
ScheduleKind scheduleKind(reference::Schedule schedule) {
  using R = reference::Schedule;
  static_assert(int(R::None) == int(ScheduleKind::None) &&
                    int(R::Uniform) == int(ScheduleKind::Uniform) &&
                    int(R::Learned) == int(ScheduleKind::Learned) &&
                    int(R::Warped) == int(ScheduleKind::Warped) &&
                    int(R::Blend) == int(ScheduleKind::Blend),
                "reference::Schedule and ScheduleKind differ");
  return static_cast<ScheduleKind>(schedule);
}

/// The kernel request for a validated layer description.
Result<LayerKernelRequest> requestFor(const LayerDesc &desc) {
  LayerKernelRequest r;
  AttentionKernelSpec &s = r.spec;
  s.p = desc.power;
  s.d = desc.shape.d;
  s.e = desc.shape.e;
  s.hq = desc.shape.Hq;
  s.h = desc.shape.H;
  switch (desc.inputType) {
  case reference::InputType::BF16:
    s.dtype = ElementKind::BF16;
    break;
  case reference::InputType::F16:
    s.dtype = ElementKind::F16;
    break;
  default:
    s.dtype = ElementKind::F32;
    break;
  }
  s.gate = desc.hasLogG && desc.hasLogGamma ? GateKind::Both
           : desc.hasLogG                   ? GateKind::Data
           : desc.hasLogGamma               ? GateKind::Head
                                            : GateKind::None;
  s.schedule = scheduleKind(desc.schedule);
  s.rotaryDims = desc.rotary.dims;
  s.rotaryBase = desc.rotary.base;
  s.rateScale = desc.rotary.rateScale;
  s.layout = desc.rotary.layout == reference::RotaryLayout::Half
                 ? RotaryLayout::Half
                 : RotaryLayout::Interleaved;
  if (desc.warpLength) {
    if (*desc.warpLength != std::floor(*desc.warpLength))
      return Status::error("the kernels take a whole --warp-length, got " +
                           std::to_string(*desc.warpLength));
    s.length = static_cast<int64_t>(*desc.warpLength);
  }
  s.scale = desc.effectiveScale();
  switch (desc.formulation) {
  case reference::Formulation::Attention:
    r.formulation = runtime::Formulation::Attention;
    if (desc.wantFinalState)
      return Status::error("the attention kernel returns no state: use "
                           "--formulation chunked or recurrent (or auto) "
                           "with --final-state");
    break;
  case reference::Formulation::Chunked:
    r.formulation = runtime::Formulation::Chunked;
    r.chunk = desc.chunkSize;
    break;
  case reference::Formulation::Recurrent:
    r.formulation = runtime::Formulation::Recurrent;
    break;
  }
  if (llvm::Error error = verifyLayerKernels(r))
    return Status::error("the generated kernels cannot run this layer: " +
                         llvm::toString(std::move(error)));
  return r;
}

} // namespace

Result<LayerOutputs> runOnKernels(const std::string &backendName,
                                  const LayerDesc &desc,
                                  const LayerInputs &in) {
  if (in.initialState && desc.formulation == reference::Formulation::Attention)
    return Status::error("the attention kernel takes no state: use "
                         "--formulation chunked or recurrent (or auto) with "
                         "--initial-state");
  Result<LayerKernelRequest> request = requestFor(desc);
  if (request.isError())
    return request.status();

  // The backend first: without a driver there is nothing to compile for.
  std::unique_ptr<runtime::Backend> backend;
  KernelTarget target = KernelTarget::EmulatorShared;
  std::vector<std::string> archs;
  if (backendName == "cuda") {
    Result<std::unique_ptr<runtime::Backend>> cuda =
        runtime::createCudaBackend();
    if (cuda.isError())
      return cuda.status();
    backend = std::move(cuda.value());
    target = KernelTarget::Cuda;
    // sm_90 runs the sm_90a kernels (wgmma and TMA need the 'a' target).
    std::string arch = backend->arch();
    archs = {arch == "sm_90" ? "sm_90a" : arch};
  } else {
    backend = runtime::createEmulatorBackend();
  }

  std::string cache = defaultKernelCacheDir();
  if (isatty(STDERR_FILENO))
    std::fprintf(stderr,
                 "sympow-run: building the %s kernels of %s (cache "
                 "%s)\n",
                 backendName.c_str(), request->spec.variantName().c_str(),
                 cache.c_str());
  auto compiled = compileLayerKernels(request.value(), target, archs, cache);
  if (!compiled)
    return Status::error("compiling the kernels failed: " +
                         llvm::toString(compiled.takeError()));
  runtime::KernelLibrary library(*backend, (*compiled)->images(),
                                 (*compiled)->infos());

  runtime::HostLayer host;
  host.B = desc.shape.B;
  host.T = desc.shape.T;
  host.q = in.q.data;
  host.k = in.k.data;
  host.v = in.v.data;
  if (in.logG)
    host.logG = in.logG->data;
  if (in.logGamma)
    host.logGamma = in.logGamma->data;
  if (in.beta)
    host.beta = in.beta->data;
  if (in.initialState) {
    host.s = in.initialState->S.data;
    host.z = in.initialState->Z.data;
    host.c = in.initialState->c.data;
  }
  runtime::LayerVariant variant = layerVariant(request.value());
  Result<runtime::HostOutputs> out =
      runtime::runLayerFromHost(*backend, library, variant, host);
  if (out.isError())
    return Status::error(std::string(backend->name()) +
                         " backend: " + out.message());

  const reference::Shape &sh = desc.shape;
  LayerOutputs result;
  result.y = reference::Tensor({sh.B, sh.T, sh.Hq, sh.e}, std::move(out->y));
  if (desc.wantFinalState) {
    int64_t dim = variant.stateDim();
    result.finalState = reference::State{
        reference::Tensor({sh.B, sh.H, dim, sh.e}, std::move(out->s)),
        reference::Tensor({sh.B, sh.H, dim}, std::move(out->z)),
        reference::Tensor({sh.B, sh.H}, std::move(out->c))};
  }
  return result;
}

} // namespace sympow::run
