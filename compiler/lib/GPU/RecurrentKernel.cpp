//===- RecurrentKernel.cpp - The recurrent formulation's kernels ----------===//
//
// Two tile kernels (docs/TileIR.md, docs/GPU.md): recurrent_state
// (RecurrentState.cpp) and recurrent_output (RecurrentOutput.cpp), launched
// in that order; the partial sums between them live in the workspace
// (runtime::layerWorkspaceBytes).
//
//===----------------------------------------------------------------------===//

#include "RecurrentCommon.h"

#include "sympow/Dialect/SymmetricPower.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace sympow {

int64_t recurrentThreadsPerBlock(const AttentionKernelSpec &spec) {
  return recurrent::stateSplit(spec).threads;
}

int64_t recurrentStatePrograms(const AttentionKernelSpec &spec) {
  return recurrent::stateSplit(spec).programs;
}

llvm::Error verifyRecurrentKernelSpec(const AttentionKernelSpec &spec) {
  if (llvm::Error error = verifyKernelVariant(spec))
    return error;
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (spec.relativeSchedule())
    return fail(llvm::formatv(
        "schedule '{0}' has no recurrent form: only the attention kernel "
        "computes it",
        stringifyScheduleKind(spec.schedule)));
  std::optional<int64_t> dim = symmetricPowerDim(spec.d, spec.p);
  // At most 2^32 f32 values (16 GiB) per state of one head.
  if (!dim || *dim > (int64_t(1) << 32) / spec.e)
    return fail(llvm::formatv("phi^{0} of d = {1} is too large a state for "
                              "the recurrent kernel",
                              spec.p, spec.d));
  if (spec.e > 1024)
    return fail(
        llvm::formatv("e = {0}: the recurrent kernels take e <= 1024", spec.e));
  return llvm::Error::success();
}

gpu::GPUFuncOp buildRecurrentKernel(OpBuilder &builder, gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &spec) {
  if (failed(recurrent::buildRecurrentState(builder, module, spec)) ||
      failed(recurrent::buildRecurrentOutput(builder, module, spec)))
    return {};
  return module.lookupSymbol<gpu::GPUFuncOp>(
      runtime::kernelName(runtime::KernelId::RecurrentState));
}

} // namespace sympow
