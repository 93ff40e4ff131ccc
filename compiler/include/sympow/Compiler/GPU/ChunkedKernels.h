//===- ChunkedKernels.h - The chunked formulation's gpu.funcs ---*- C++ -*-===//
//
// The chunked formulation as four kernels, launched in order on one stream:
//
//   chunk_counts  (rotating schedules) the angle count c_t of every token, f64
//   chunk_states  every chunk's own state dS_n, dZ_n and its total log gate
//   chunk_scan    the discounted scan: dS_n becomes the state before chunk n,
//                 S, Z, c become the final state
//   chunk_output  per chunk: the causal attention inside it plus its queries
//                 against the state before it, combined into y
//
// The chunk states are in SPEC's phi order, so S and Z in and out are the
// layer's state. docs/GPU.md lists every kernel's arguments and grid.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_CHUNKEDKERNELS_H
#define SYMPOW_COMPILER_GPU_CHUNKEDKERNELS_H

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Support/ChunkStatePass.h"

#include <optional>
#include <string>
#include <vector>

namespace sympow {

/// Static workgroup memory the kernels need for chunks of `chunk` tokens.
int64_t chunkedSharedBytes(const AttentionKernelSpec &spec, int64_t chunk);

/// The largest chunk whose kernels fit the 48 KiB of static shared memory.
int64_t largestChunk(const AttentionKernelSpec &spec);

/// The longest chunk of at most 64 the kernels take: for bf16/f16 the
/// longest power of two the tile chunk_output takes (64 wherever its arrays
/// fit), for f32 64 or the largest that fits the scalar kernels' workgroup
/// memory.
int64_t shortChunk(const AttentionKernelSpec &spec);

/// The chunks a variant's default is chosen from: shortChunk, and the
/// powers of two from 128 to 2048 that the tile chunk_output takes (2048:
/// the model's choice at d = e = 128, whose chunk states of 8256 rows
/// weigh more than the longer causal part).
std::vector<int64_t> chunkCandidates(const AttentionKernelSpec &spec);

/// chunk_state_pass's split for `spec` at chunks of `chunk` tokens
/// (sympow/Support/ChunkStatePass.h), or none where chunk_states and
/// chunk_scan run instead.
std::optional<ChunkStatePass> chunkStatePassOf(const AttentionKernelSpec &spec,
                                               int64_t chunk);

/// Threads per block of chunk_states, chunk_scan and chunk_output.
int64_t chunkedThreadsPerBlock(const AttentionKernelSpec &spec);

/// Checks that the chunked kernels support `spec` with chunks of `chunk`
/// tokens; the message says what is allowed.
llvm::Error verifyChunkedKernelSpec(const AttentionKernelSpec &spec,
                                    int64_t chunk);

/// Emits the kernels into `module` and returns their names in launch order
/// (chunk_counts only for a rotating schedule). The spec must verify.
std::vector<std::string> buildChunkedKernels(mlir::OpBuilder &builder,
                                             mlir::gpu::GPUModuleOp module,
                                             const AttentionKernelSpec &spec,
                                             int64_t chunk);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_CHUNKEDKERNELS_H
