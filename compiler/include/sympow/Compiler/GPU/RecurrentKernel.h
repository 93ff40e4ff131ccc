//===- RecurrentKernel.h - The recurrent formulation's gpu.func -*- C++ -*-===//
//
// The recurrent formulation as one kernel: every block owns the state
// (S, Z, c) of one (batch, key/value head), steps through the T new tokens
// of its sequence in order, updates the state in place and writes y for the
// group's query heads. With T = 1 it is the decoding step of serving. The
// variant is described by the same spec as the attention kernel; see
// docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H
#define SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H

#include "sympow/Compiler/GPU/AttentionKernel.h"

namespace sympow {

/// Threads per block: one per column of the state times the row lanes.
int64_t recurrentThreadsPerBlock(const AttentionKernelSpec &spec);

/// Checks that the recurrent kernel supports the spec (no warped or blend
/// schedule: they have no recurrent form); the message says what is allowed.
llvm::Error verifyRecurrentKernelSpec(const AttentionKernelSpec &spec);

/// Emits `gpu.func @<name> kernel` into `module`: buffers q, k, v, [log_g],
/// [log_gamma], [beta], y, S, Z (f32, in place), c (f64, in place) as
/// memref<?xT>, then i64 B, T; grid (1, H, B). The spec must verify.
mlir::gpu::GPUFuncOp buildRecurrentKernel(mlir::OpBuilder &builder,
                                          mlir::gpu::GPUModuleOp module,
                                          const AttentionKernelSpec &spec,
                                          llvm::StringRef name = "recurrent");

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H
