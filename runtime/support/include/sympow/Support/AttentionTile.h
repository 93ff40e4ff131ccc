//===- AttentionTile.h - How the tile attention kernel splits a layer -*- C++
//-*-===//
//
// The attention formulation as a tile kernel (compiler/lib/GPU/
// AttentionTile.cpp): program (x, query head, sequence) takes query rows
// [t0, t0 + R), one warpgroup, and walks the keys from its diagonal back to
// the sequence's start, K per step, FlashAttention-2's online maximum over
// the log weights. Where [V | 1] exceeds one MMA's N, each program takes a
// block of the value columns (the scores computed once per block). Both
// products are warpgroup MMAs (wgmma on sm_90a, mma.sync before): scores from q
// in registers against the step's keys in workgroup memory, and P, in
// registers, against [V | 1]. The generator, the runtime and the GPU model's
// estimates all decide here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_ATTENTIONTILE_H
#define SYMPOW_SUPPORT_ATTENTIONTILE_H

#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/GpuLimits.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace sympow {

struct AttentionTile {
  /// Query rows per program: one warpgroup, 16 rows per warp.
  static constexpr int64_t kRows = 64;
  /// Keys per step: the scores' N, and P's K in k steps of 16.
  static constexpr int64_t kKeys = 64;
  static constexpr int64_t kThreads = 128;

  /// Rotating layers: q and k come rotated once (rotate_qk) as hi + lo
  /// halves of the input type, and the scores are split: q_hi k_hi + q_hi
  /// k_lo + q_lo k_hi (a rotated q or k is not exact in 16 bits).
  bool splitScores = false;

  /// Programs along the value columns: 1, or valueColumnBlocks(e) where
  /// [V | 1] exceeds one MMA's N (e = 256: four): each program computes
  /// the same scores and y for its block of columns. Blocks of 64 keep
  /// [num | den] at 36 floats a thread (four programs per SM).
  int64_t columnBlocks = 1;
  /// The value columns one program takes.
  int64_t programColumns(int64_t e) const { return e / columnBlocks; }

  /// Head dims as the MMAs see them (ChunkOutputTile's: d in k steps of 16;
  /// [V | 1] with the ones column at e, whole 8-column pieces).
  static int64_t keyColumns(int64_t d) {
    return ChunkOutputTile::keyColumns(d);
  }
  static int64_t valueColumns(int64_t e) {
    return ChunkOutputTile::valueColumns(e);
  }
  /// A rotated q or k token as rotate_qk writes it ([B, T, heads, this]):
  /// the hi half, then the lo half, each keyColumns(d) wide, zeros past d.
  static int64_t halvesColumns(int64_t d) { return 2 * keyColumns(d); }
  /// Columns of a q or k row as the kernel copies it from global memory:
  /// d, or rotate_qk's halves.
  int64_t sourceColumns(int64_t d) const {
    return splitScores ? halvesColumns(d) : d;
  }
  /// Columns of a staged q or k row: both halves where the scores are
  /// split.
  int64_t operandColumns(int64_t d) const {
    return splitScores ? halvesColumns(d) : keyColumns(d);
  }
  /// Row stride of q as staged (ldmatrix reads its A fragments once).
  int64_t queryStride(int64_t d) const {
    return ldmatrixRowStride(operandColumns(d));
  }
  /// Elements of a step's keys and of its values, each in the MMAs'
  /// canonical layout without swizzle: row j's columns 8c .. 8c + 7 at
  /// (c kKeys + j) 8.
  int64_t keyElements(int64_t d) const { return kKeys * operandColumns(d); }
  static int64_t valueElements(int64_t e) { return kKeys * valueColumns(e); }
  /// Programs per SM that ptxas must fit: four (128 registers) where the
  /// scores and [num | den] take at most 32 + 36 floats and q's fragments
  /// one half, else what it takes.
  int32_t minProgramsPerSM(int64_t d, int64_t e) const {
    if (keyColumns(d) > 64 || valueColumns(programColumns(e)) > 72)
      return 1;
    return splitScores ? 3 : 4;
  }
  /// Elements of the operand array: q (row stride queryStride) until its
  /// A fragments are in registers, then a step's keys and, after them, its
  /// values.
  int64_t operandElements(int64_t d, int64_t e) const {
    return std::max(kRows * queryStride(d),
                    keyElements(d) + valueElements(programColumns(e)));
  }
  /// Workgroup bytes: the operands (16-bit), the query rows' gate prefix
  /// and its scan's buffer, the key step's gate sums.
  int64_t sharedBytes(int64_t d, int64_t e) const {
    return 2 * operandElements(d, e) +
           4 * (3 * kRows + ChunkOutputTile::keyGateElements(kKeys));
  }
};

/// The tile attention kernel takes 16-bit inputs (q and k exact operands,
/// or rotated once into hi + lo halves; not the relative schedules, whose
/// angles are no prefix sums), head dims in whole 8-element runs, [V | 1]
/// within one MMA's N (256), or in blocks (valueColumnBlocks). Arrays past
/// the static 48 KiB (d = 256, or rotated d = 128 with e > 104) are dynamic
/// shared memory: those kernels hold one program per SM anyway
/// (minProgramsPerSM). Others run the FMA kernel
/// (compiler/lib/GPU/AttentionFma.cpp).
inline std::optional<AttentionTile> attentionTile(bool sixteenBit, bool rotates,
                                                  bool relativeSchedule,
                                                  int64_t d, int64_t e) {
  if (!sixteenBit || relativeSchedule || d % 8 != 0 || e % 8 != 0 || d > 256)
    return std::nullopt;
  AttentionTile tile;
  tile.splitScores = rotates;
  // Past one MMA's N only: one program of up to 256 columns (one per SM) is
  // faster than blocks that each compute the scores again (predicted at e
  // = 192: 1.75 ms against about 2.1 at 16K).
  if (AttentionTile::valueColumns(e) > 256)
    tile.columnBlocks = valueColumnBlocks(e);
  if (tile.sharedBytes(d, e) > kStaticSharedBytes &&
      (tile.minProgramsPerSM(d, e) > 1 ||
       tile.sharedBytes(d, e) > kMaxSharedBytesPerBlock))
    return std::nullopt;
  return tile;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_ATTENTIONTILE_H
