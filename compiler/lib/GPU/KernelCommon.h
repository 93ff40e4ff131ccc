//===- KernelCommon.h - Pieces every generated kernel uses ------*- C++ -*-===//
//
// Types, workgroup arrays and the kernel ABI's arguments (docs/KernelABI.md)
// shared by the kernel generators.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_KERNELCOMMON_H
#define SYMPOW_LIB_GPU_KERNELCOMMON_H

#include "Emitter.h"

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Runtime/Layer.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <algorithm>

namespace sympow::gpu_detail {

/// Each token's log gate (log_g + log_gamma) is saturated at this floor
/// before it enters a prefix sum: exp(-1024) is 0 in f32 and in f64, so any
/// weight exp(G_i - G_j) that spans a gate below it is exactly 0 either way
/// (every gate is <= 0), and y is unchanged; but sums of saturated gates stay
/// far inside the f32 range (T * 1024), where -1e37 per token overflowed to
/// -inf after 34 tokens (issue 13). docs/SPEC.md, "Gates below f32".
constexpr double kLogGateFloor = -1024.0;

/// 2 pi in f64: rotary angles are reduced modulo it.
constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Flat offset of [b, t, head, 0] in a [B, T, heads, width] tensor.
mlir::Value tokenOffset(Emitter &E, mlir::Value b, mlir::Value T, mlir::Value t,
                        int64_t heads, mlir::Value head, int64_t width);

/// The MLIR type of q, k, v and y.
mlir::Type elementType(mlir::MLIRContext *ctx, ElementKind kind);
/// memref<?xT>: a kernel buffer argument.
mlir::MemRefType bufferType(mlir::Type element);
/// A static array in workgroup memory.
mlir::MemRefType workgroupMemRef(llvm::ArrayRef<int64_t> shape,
                                 mlir::Type element);

/// A kernel's arguments as the runtime packs them: the buffers of
/// runtime::layerKernelArguments (one table for both sides), then i64 B, T.
struct KernelArguments {
  llvm::SmallVector<runtime::KernelArg> buffers;
  /// memref<?xT> per buffer, then i64, i64.
  llvm::SmallVector<mlir::Type> types;

  /// Buffer `kind` of `fn`, or null if the kernel takes none.
  mlir::Value get(mlir::gpu::GPUFuncOp fn, runtime::KernelArg kind) const;
  /// The sequence length T of `fn`, as an index.
  mlir::Value seqLen(mlir::OpBuilder &b, mlir::gpu::GPUFuncOp fn) const;
};

/// The arguments of `kernel` for `spec` (chunked kernels: with chunks of
/// `chunk` tokens, which decide chunk_output's form) in `formulation` (a
/// kernel two formulations launch takes what the layer has: chunk_counts
/// reads no c in the attention formulation).
KernelArguments kernelArguments(
    mlir::MLIRContext *ctx, const AttentionKernelSpec &spec,
    runtime::KernelId kernel, int64_t chunk = 0,
    runtime::Formulation formulation = runtime::Formulation::Chunked);

/// Row lanes of the state kernels: threads form lanes of e columns, about
/// 256 threads per block.
inline int64_t stateRowLanes(const AttentionKernelSpec &spec) {
  return std::max<int64_t>(1, 256 / spec.e);
}

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_KERNELCOMMON_H
