//===- RecurrentKernel.h - The recurrent formulation's gpu.func -*- C++ -*-===//
//
// The recurrent formulation as two tile kernels: recurrent_state splits
// the state (S, Z) of each (batch, key/value head) over programs of whole
// rows that step through the T new tokens in order, update their rows in
// place and write partial sums; recurrent_output reduces them into y for
// every query head and writes the final count c. With T = 1 it is the
// decoding step of serving. The variant is described by the same spec as
// the attention kernel; see docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H
#define SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H

#include "sympow/Compiler/GPU/AttentionKernel.h"

namespace sympow {

/// Threads per block of both kernels: whole rows of R adjacent columns
/// per thread, about 256.
int64_t recurrentThreadsPerBlock(const AttentionKernelSpec &spec);

/// Programs per (head, sequence) of recurrent_state: grid.x, the X of the
/// partial sums num [B, T, Hq, X, e] and den [B, T, Hq, X].
int64_t recurrentStatePrograms(const AttentionKernelSpec &spec);

/// Checks that the recurrent kernel supports the spec (no warped or blend
/// schedule: they have no recurrent form); the message says what is allowed.
llvm::Error verifyRecurrentKernelSpec(const AttentionKernelSpec &spec);

/// Emits `gpu.func @recurrent_state` and `@recurrent_output` (lowered tile
/// kernels) into `module`, with the arguments of
/// runtime::layerKernelArguments (docs/KernelABI.md); returns the first,
/// null on failure. The spec must verify.
mlir::gpu::GPUFuncOp buildRecurrentKernel(mlir::OpBuilder &builder,
                                          mlir::gpu::GPUModuleOp module,
                                          const AttentionKernelSpec &spec);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_RECURRENTKERNEL_H
