//===- ChunkedCommon.h - Pieces of the chunked kernels ----------*- C++ -*-===//
//
// What the chunked kernels share: the scalar ones' (ChunkedKernels.cpp)
// view of their ids and tensors, creation with launch metadata, the gate
// prefix and weights of a chunk, rotated tiles; the tile kernels' entry
// points.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_CHUNKEDCOMMON_H
#define SYMPOW_LIB_GPU_CHUNKEDCOMMON_H

#include "KernelCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/ChunkStatePass.h"
#include "sympow/Support/GpuLimits.h"

namespace sympow::chunked {

using gpu_detail::Emitter;
using mlir::Type;
using mlir::Value;

/// What every chunked kernel knows about itself.
struct Chunked {
  const AttentionKernelSpec &spec;
  Emitter &E;
  int64_t C, dim, g;
  Type elem;
  Value T, b, tid, lane, col;

  int64_t threadCount = 0; // 0: chunkedThreadsPerBlock

  int64_t threads() const {
    return threadCount ? threadCount : chunkedThreadsPerBlock(spec);
  }
  Value chunks() { return E.div(E.add(T, E.idx(C - 1)), E.idx(C)); }
  /// Flat offset of [b, t, head, 0] in a [B, T, heads, width] tensor.
  Value tokenOffset(Value t, int64_t heads, Value head, int64_t width) {
    Value bt = E.add(E.mul(b, T), t);
    return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(width));
  }
  /// Flat offset of [b, n, h, 0] in a [B, N, H, width] tensor.
  Value chunkOffset(Value n, Value h, int64_t width) {
    Value bn = E.add(E.mul(b, chunks()), n);
    return E.mul(E.add(E.mul(bn, E.idx(spec.h)), h), E.idx(width));
  }
  Value isThread0() {
    return E.cmpi(mlir::arith::CmpIPredicate::eq, tid, E.idx(0));
  }
};

/// The function of `kernel` with the arguments the runtime packs for it
/// (runtime::layerKernelArguments), its workgroup arrays, launch metadata;
/// the builder is left at the start of its body.
mlir::gpu::GPUFuncOp
createKernel(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
             runtime::KernelId kernel, const gpu_detail::KernelArguments &args,
             llvm::ArrayRef<Type> workgroup, int64_t threads,
             int64_t tokensPerBlock, int64_t gridY, int32_t minBlocksPerSM = 1);

/// Fills T, b and the thread ids of `K`.
void bindIds(Chunked &K, mlir::gpu::GPUFuncOp fn,
             const gpu_detail::KernelArguments &args);

/// Inclusive prefix of log_g + log_gamma over the chunk's tokens into
/// `prefix` [C] (thread 0; entries past T repeat the last sum); no barrier.
void emitGatePrefix(Chunked &K, Value logG, Value logGamma, Value h, Value t0,
                    Value prefix);

/// After emitGatePrefix into `weights`: weights[j] = exp(G_last - G_j) for
/// the chunk's tokens before T, 0 up to `size`; decay[at] = G_last.
void emitChunkWeights(Chunked &K, Value weights, int64_t size, Value t0,
                      Value decay, Value at);

/// Stores element (row, col) of a tile.
using StoreElement = llvm::function_ref<void(Value row, Value col, Value x)>;

/// Rows t0 .. t0 + C - 1 of a [B, T, heads, d] tensor into `tile` [C * d]
/// as f32, times `factor`, rotated by the absolute counts; zero past T.
/// With `store`, each f32 element goes through it instead.
void emitLoadRotatedTile(Chunked &K, Value src, int64_t heads, Value head,
                         Value t0, Value counts, Value countHead, Value theta,
                         double factor, Value tile,
                         StoreElement store = nullptr);

/// In a tile kernel, the log gate of token first + j of head h, j the
/// element (`perThread` adjacent ones a thread): log_g + log_gamma (where
/// the variant has them; `gamma` is log_gamma[h]) saturated at
/// kLogGateFloor (exact, and sums stay finite), 0 for j >= count (an index,
/// or an i32).
Value tokenGates(gpu_detail::Tiles &t, const AttentionKernelSpec &s, Value logG,
                 Value gamma, Value batch, Value T, Value h, Value first,
                 Value count, int64_t perThread = 1);

/// The split of the tile chunk_output for `spec` at chunks of `chunk`
/// (ChunkOutputTile.h), or none.
std::optional<ChunkOutputTile> outputTileOf(const AttentionKernelSpec &spec,
                                            int64_t chunk);

/// c[b, h] = counts[b, T - 1, h] when T > 0 (the count after the layer), in
/// a tile kernel: stored by the elements where `once` holds (one per
/// (b, h) in the grid).
void emitFinalCount(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                    Value counts, Value c, Value batch, Value T, Value h,
                    Value once);

/// chunk_scan, a tile kernel parallel over the state (ChunkScan.cpp), built
/// and lowered to a plain gpu.func; its programs along x per (head, batch).
mlir::LogicalResult buildScan(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
                              const AttentionKernelSpec &s, int64_t C,
                              int64_t dim);

/// chunk_state_pass, a tile kernel (ChunkStatePass.cpp): the state before
/// every chunk and the final one in one pass, parallel over row tiles; it
/// takes the place of chunk_states and chunk_scan where `split` exists.
mlir::LogicalResult buildStatePass(mlir::OpBuilder &b,
                                   mlir::gpu::GPUModuleOp module,
                                   const AttentionKernelSpec &s, int64_t C,
                                   int64_t dim, const ChunkStatePass &split);

/// chunk_counts, a tile kernel (ChunkCounts.cpp): the rotation count of
/// every token (f64) by a scan per tile of 256 tokens, one program per
/// (head, sequence), from the state's c (from 0 in the attention
/// formulation, which has no state).
mlir::LogicalResult
buildCounts(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
            const AttentionKernelSpec &s,
            runtime::Formulation formulation = runtime::Formulation::Chunked);

/// chunk_keys, a tile kernel (RotatedOperands.cpp): the keys rotated once
/// by the absolute counts into an f32 array, for chunk_state_pass.
mlir::LogicalResult buildKeys(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
                              const AttentionKernelSpec &s);

/// rotate_qk, a tile kernel (RotatedOperands.cpp): q and k rotated once by
/// the absolute counts into hi + lo halves of the input type, for the tile
/// attention kernel.
mlir::LogicalResult buildRotateQK(mlir::OpBuilder &b,
                                  mlir::gpu::GPUModuleOp module,
                                  const AttentionKernelSpec &s);

/// chunk_output, a tile kernel (ChunkOutput.cpp): query tiles of `split`
/// (ChunkOutputTile.h); 16-bit inputs with chunk_state_pass.
mlir::LogicalResult buildOutputTile(mlir::OpBuilder &b,
                                    mlir::gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &s, int64_t C,
                                    int64_t dim, const ChunkOutputTile &split);

} // namespace sympow::chunked

#endif // SYMPOW_LIB_GPU_CHUNKEDCOMMON_H
