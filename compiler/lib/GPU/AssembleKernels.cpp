//===- AssembleKernels.cpp - Kernels to PTX and cubin without spills ------===//

#include "sympow/Compiler/GPU/AssembleKernels.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/Regex.h"

#include <optional>

using namespace mlir;

namespace sympow {

int32_t AssembledKernels::relaxedFrom(llvm::StringRef kernel) const {
  for (const RelaxedFloor &r : relaxed)
    if (r.kernel == kernel)
      return r.requested;
  return 0;
}

namespace {

/// One lowering and assembly of `module` as it stands.
llvm::Error assembleOnce(ModuleOp module, const GpuTargetOptions &options,
                         llvm::StringRef cubinPath, llvm::StringRef ptxas,
                         bool keepNvvm, AssembledKernels &out) {
  FailureOr<std::map<std::string, std::string>> lowered =
      compileToPtx(module, options, keepNvvm ? &out.nvvm : nullptr);
  if (failed(lowered) || lowered->size() != 1)
    return llvm::createStringError("lowering the kernels to PTX for " +
                                   options.chip + " failed");
  out.ptx = std::move(lowered->begin()->second);
  auto usage = runPtxas(out.ptx, options.chip, cubinPath, ptxas);
  if (!usage)
    return usage.takeError();
  out.usage = std::move(*usage);
  return llvm::Error::success();
}

/// The kernel ptxas had too few registers for at its floor (error C7602,
/// "Insufficient registers ... in function NAME"), if that is the error.
std::optional<std::string> shortOfRegisters(llvm::StringRef message) {
  llvm::Regex c7602("Insufficient registers .* in function ([A-Za-z0-9_]+)");
  llvm::SmallVector<llvm::StringRef, 2> m;
  if (!c7602.match(message, &m))
    return std::nullopt;
  return m[1].str();
}

/// Lowers the floor of kernel `name` in `module` by one, if it is above 1.
bool lowerFloor(ModuleOp module, llvm::StringRef name,
                std::vector<RelaxedFloor> &relaxed) {
  gpu::GPUFuncOp fn;
  module.walk([&](gpu::GPUFuncOp f) {
    if (f.getName() == name)
      fn = f;
  });
  if (!fn || tile::getMinBlocksPerSM(fn) <= 1)
    return false;
  int32_t floor = tile::getMinBlocksPerSM(fn);
  tile::setMinBlocksPerSM(fn, floor - 1);
  auto it = llvm::find_if(
      relaxed, [&](const RelaxedFloor &r) { return r.kernel == name; });
  if (it == relaxed.end())
    relaxed.push_back({name.str(), floor, floor - 1});
  else
    it->built = floor - 1;
  return true;
}

} // namespace

llvm::Expected<AssembledKernels>
assembleKernels(ModuleOp module, const GpuTargetOptions &options,
                llvm::StringRef cubinPath, llvm::StringRef ptxas,
                bool keepNvvm) {
  // The floors are lowered on a copy: the caller's module stays as built.
  OwningOpRef<ModuleOp> source = module.clone();
  AssembledKernels out;
  for (;;) {
    if (llvm::Error e =
            assembleOnce(*source, options, cubinPath, ptxas, keepNvvm, out)) {
      // ptxas may refuse a floor outright (a wgmma's accumulators alone
      // exceed the registers it leaves).
      std::string message = llvm::toString(std::move(e));
      std::optional<std::string> kernel = shortOfRegisters(message);
      if (kernel && lowerFloor(*source, *kernel, out.relaxed))
        continue;
      return llvm::createStringError(message);
    }
    bool again = false;
    for (const PtxasUsage &u : out.usage)
      if (u.spillStoreBytes != 0 || u.spillLoadBytes != 0)
        again |= lowerFloor(*source, u.kernel, out.relaxed);
    if (!again)
      return out;
  }
}

} // namespace sympow
