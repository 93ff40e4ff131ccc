//===- GpuLimits.h - The CUDA limits every kernel keeps to ------*- C++ -*-===//
//
// One definition for the generators (compiler/lib/GPU), the runtime's
// kernel lists and the GPU model's estimates.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_GPULIMITS_H
#define SYMPOW_SUPPORT_GPULIMITS_H

#include <cstdint>

namespace sympow {

/// Static shared (workgroup) memory per block: CUDA caps it at 48 KiB.
/// A tile kernel's arrays past it become dynamic shared memory
/// (compiler/lib/Tile/DynamicShared.cpp), which the CUDA backend opts in
/// per function.
constexpr int64_t kStaticSharedBytes = 48 * 1024;
/// Shared memory one block may take as dynamic shared memory on every
/// target a library is built for: the A100's 163 KiB (the H100 allows 227).
constexpr int64_t kMaxSharedBytesPerBlock = 163 * 1024;
/// Shared memory per block that still lets two blocks share an SM of every
/// target (half the A100's 164 KiB): what a kernel that registers hold to
/// one or two programs per SM may take without losing the second.
constexpr int64_t kSharedBytesForTwoBlocks = 82 * 1024;
/// What each of two blocks may take of an H100 SM's 228 KB (1 KB of each
/// block's is the system's).
constexpr int64_t kSharedBytesForTwoH100Blocks = 113 * 1024;

/// The row stride, in elements, of a 16-bit array that ldmatrix reads:
/// `columns` rounded up to an odd number of 16-byte pieces, so that the
/// eight 16-byte rows of a matrix start in eight distinct groups of four
/// banks (an even number puts rows r and r + 4 on the same banks).
constexpr int64_t ldmatrixRowStride(int64_t columns) {
  return ((columns + 7) / 8 | 1) * 8;
}

/// The largest run of 8, 4, 2 or 1 adjacent elements of `elementBytes`
/// each that divides `width` and is at most 16 bytes: one load or store
/// instruction per run, so that a warp's runs are adjacent and fill whole
/// sectors (two 16-byte loads per thread would each use half of every
/// sector).
constexpr int64_t vectorRun(int64_t width, int64_t elementBytes) {
  int64_t L = elementBytes >= 16 ? 1 : 16 / elementBytes;
  L = L < 8 ? L : 8;
  while (L > 1 && width % L != 0)
    L /= 2;
  return L;
}

/// Blocks per SM that ptxas must fit for the FMA attention kernel (its
/// 256-thread blocks; the tensor-core tile kernel says its own,
/// AttentionTile::minProgramsPerSM).
constexpr int32_t kAttentionFmaBlocksPerSM = 2;

/// Blocks per SM that ptxas must fit for chunk_states (256 threads: 80
/// registers, which it meets without spills on sm_80 and sm_90a; without a
/// floor ptxas took 117 at p = 2, d = e = 64, two blocks per SM).
constexpr int32_t kF32ChunkBlocksPerSM = 3;

/// Blocks per SM for the f32 chunk_output (256 threads: 128 registers; it
/// takes 153 without a floor). At three blocks (80 registers) it met the
/// cap only by the order the host compiler emitted its ops in: built by
/// clang, whose arguments are evaluated left to right where gcc goes right
/// to left, the learned-rotation variant spilled 24 bytes on sm_90a.
constexpr int32_t kF32ChunkOutputBlocksPerSM = 2;

/// The registers a thread may take when `blocks` blocks of `threads` share
/// an SM's 65536 (ptxas allocates them in multiples of 8, at most 255 a
/// thread).
constexpr int64_t registerCap(int32_t blocks, int64_t threads) {
  int64_t cap = 65536 / (blocks * threads) / 8 * 8;
  return cap < 255 ? cap : 255;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_GPULIMITS_H
