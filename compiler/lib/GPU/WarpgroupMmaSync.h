//===- WarpgroupMmaSync.h - Warpgroup MMA ops before sm_90a -----*- C++ -*-===//

#ifndef SYMPOW_COMPILER_GPU_WARPGROUPMMASYNC_H
#define SYMPOW_COMPILER_GPU_WARPGROUPMMASYNC_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace sympow {

/// Rewrites the sympow_tile.warpgroup_* ops and async_proxy_fence under
/// `root` for a GPU without wgmma: each warp of a warpgroup computes its 16
/// rows with ldmatrix (through the descriptors' canonical layouts) and
/// mma.sync m16n8k16; fences, commits and waits have nothing to order. A
/// descriptor must come straight from a warpgroup_descriptor op; the ops
/// take a thread's vectors (--sympow-lower-warpgroup-mma checks it first).
mlir::LogicalResult lowerWarpgroupOpsToMmaSync(mlir::Operation *root);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_WARPGROUPMMASYNC_H
