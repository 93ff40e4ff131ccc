//===- AttentionTile.h - How the tile attention kernel splits a layer -*- C++
//-*-===//
//
// The attention formulation as a tile kernel (compiler/lib/GPU/
// AttentionTile.cpp): program (x, query head, sequence) takes query rows
// [t0, t0 + R), one warpgroup, and walks the keys from its diagonal back to
// the sequence's start, K per step, FlashAttention-2's online maximum over
// the log weights. Both products are warpgroup MMAs (wgmma on sm_90a,
// mma.sync before): scores from q in registers against the step's keys in
// workgroup memory, and P, in registers, against [V | 1]. The generator,
// the runtime and the GPU model's estimates all decide here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_ATTENTIONTILE_H
#define SYMPOW_SUPPORT_ATTENTIONTILE_H

#include "sympow/Support/ChunkOutputTile.h"

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

  /// Head dims as the MMAs see them (ChunkOutputTile's: d in k steps of 16;
  /// [V | 1] with the ones column at e, whole 8-column pieces).
  static int64_t keyColumns(int64_t d) {
    return ChunkOutputTile::keyColumns(d);
  }
  static int64_t valueColumns(int64_t e) {
    return ChunkOutputTile::valueColumns(e);
  }
  /// Row stride of q as staged (ldmatrix reads its A fragments once).
  static int64_t queryStride(int64_t d) {
    return ChunkOutputTile::keyStride(d);
  }
  /// Elements of a step's keys and of its values, each in the MMAs'
  /// canonical layout without swizzle: row j's columns 8c .. 8c + 7 at
  /// (c kKeys + j) 8.
  static int64_t keyElements(int64_t d) { return kKeys * keyColumns(d); }
  static int64_t valueElements(int64_t e) { return kKeys * valueColumns(e); }
  /// Programs per SM that ptxas must fit: four (128 registers) where the
  /// scores and [num | den] take at most 32 + 36 floats, else what it
  /// takes.
  static int32_t minProgramsPerSM(int64_t d, int64_t e) {
    return keyColumns(d) <= 64 && valueColumns(e) <= 72 ? 4 : 1;
  }
  /// Elements of the operand array: q (row stride queryStride) until its
  /// A fragments are in registers, then a step's keys and, after them, its
  /// values.
  static int64_t operandElements(int64_t d, int64_t e) {
    return std::max(kRows * queryStride(d), keyElements(d) + valueElements(e));
  }
  /// Workgroup bytes: the operands (16-bit), the query rows' gate prefix
  /// and its scan's buffer, the key step's gate sums.
  static int64_t sharedBytes(int64_t d, int64_t e) {
    return 2 * operandElements(d, e) +
           4 * (3 * kRows + ChunkOutputTile::keyGateElements(kKeys));
  }
};

/// The tile attention kernel takes 16-bit inputs without rotation (q and k
/// exact bf16 operands; f16 ones are split), head dims in whole 8-element
/// runs, and [V | 1] within one MMA's N (256). Others keep the hand-built
/// kernel (compiler/lib/GPU/AttentionKernel.cpp).
inline std::optional<AttentionTile> attentionTile(bool sixteenBit, bool rotates,
                                                  int64_t d, int64_t e) {
  if (!sixteenBit || rotates || d % 8 != 0 || e % 8 != 0 || d > 256 ||
      AttentionTile::valueColumns(e) > 256)
    return std::nullopt;
  return AttentionTile{};
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_ATTENTIONTILE_H
