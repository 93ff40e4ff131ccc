//===- KernelLaunch.h - A kernel's launch metadata --------------*- C++ -*-===//
//
// The `sympow.launch` attribute of a kernel (docs/KernelABI.md) written from
// and read back into the runtime's own description, runtime::KernelLaunch,
// so the compiler and the runtime share one definition of a launch.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_KERNELLAUNCH_H
#define SYMPOW_COMPILER_TILE_KERNELLAUNCH_H

#include "sympow/Runtime/KernelLibrary.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>

namespace sympow::tile {

/// Marks `fn` as a kernel launched as `launch`: the gpu kernel attribute,
/// known_block_size, `sympow.launch`, ptxas' occupancy floor
/// (`nvvm.minctasm`) and 16-byte aligned workgroup arrays.
void setKernelLaunch(mlir::gpu::GPUFuncOp fn,
                     const runtime::KernelLaunch &launch,
                     int32_t minBlocksPerSM = 1);

/// ptxas' occupancy floor for `fn` (`nvvm.minctasm`): at least `blocks`
/// blocks of it resident per SM, so registers are capped to fit them.
void setMinBlocksPerSM(mlir::gpu::GPUFuncOp fn, int32_t blocks);
/// The floor set on `fn`, 1 where none is.
int32_t getMinBlocksPerSM(mlir::gpu::GPUFuncOp fn);

/// The launch `fn` records in `sympow.launch`; none if it has none or a
/// malformed one.
std::optional<runtime::KernelLaunch> getKernelLaunch(mlir::gpu::GPUFuncOp fn);

} // namespace sympow::tile

#endif // SYMPOW_COMPILER_TILE_KERNELLAUNCH_H
