//===- ChunkedCommon.h - Pieces of the chunked kernels ----------*- C++ -*-===//
//
// What the chunked kernels share (ChunkedKernels.cpp): a chunk's gate
// prefix and rotated rows, token gates, the final count; the kernels' entry
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

/// The program of an f32 chunked kernel (chunk_states, the f32
/// chunk_output): grid (chunk, `heads`, sequence), L row lanes of e
/// columns (chunkedThreadsPerBlock), f32 workgroup arrays of `arrays`
/// elements, held to kF32ChunkBlocksPerSM (chunk_states) or
/// kF32ChunkOutputBlocksPerSM blocks per SM; the builder is left at the
/// start of its body.
mlir::gpu::GPUFuncOp
createF32ChunkKernel(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
                     const AttentionKernelSpec &s, runtime::KernelId kernel,
                     int64_t C, int64_t heads, llvm::ArrayRef<int64_t> arrays,
                     gpu_detail::KernelArguments &args, int64_t chunk);

/// In a tile kernel, prefix[j] for j < C: the inclusive sums of log_g +
/// log_gamma (each saturated at kLogGateFloor) over the tokens t0 .. t0 + j
/// of head h, entries past T repeating the last sum; no barrier.
void stageGatePrefix(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                     Value logG, Value logGamma, Value batch, Value T, Value h,
                     Value t0, int64_t C, Value prefix);

/// In a tile kernel, tokens t0 .. t0 + C - 1 of head `head` of a [B, T,
/// heads, d] tensor into the f32 workgroup array `rows` [C * d], times
/// `factor`, rotated by the absolute counts of key head `countsHead`; zero
/// past T; no barrier.
void stageRotatedRows(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                      Value src, int64_t heads, Value head, Value batch,
                      Value T, Value t0, int64_t C, Value counts,
                      Value countsHead, double factor, Value rows);

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

/// chunk_states, a tile kernel for f32 inputs (ChunkStates.cpp): each
/// chunk's own state dS, dZ and decay, in f32 FMA.
mlir::LogicalResult buildStates(mlir::OpBuilder &b,
                                mlir::gpu::GPUModuleOp module,
                                const AttentionKernelSpec &s, int64_t C,
                                int64_t dim);

/// chunk_output for f32 inputs, a tile kernel (ChunkOutputF32.cpp): one
/// program per chunk, its rows in f32 FMA from the state before it.
mlir::LogicalResult buildOutputF32(mlir::OpBuilder &b,
                                   mlir::gpu::GPUModuleOp module,
                                   const AttentionKernelSpec &s, int64_t C,
                                   int64_t dim);

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
