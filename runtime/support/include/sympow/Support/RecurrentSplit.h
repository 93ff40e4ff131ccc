//===- RecurrentSplit.h - How the recurrent kernels split a state -*- C++ -*-===//
//
// recurrent_state splits the state of each (head, sequence) over programs
// of whole rows; recurrent_output reduces their partial sums. The split is
// one definition for the kernel generators (compiler/lib/GPU), the
// runtime's workspace (the partial sums' size) and the GPU model's
// estimates.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_RECURRENTSPLIT_H
#define SYMPOW_SUPPORT_RECURRENTSPLIT_H

#include "sympow/Support/SymmetricPowerDim.h"

namespace sympow {

/// A tile holds `rowsPerTile` whole rows of S: thread t has `perThread` (R)
/// adjacent columns of row t / Q (Q = e / R threads per row), one 16-byte
/// access for f32 when R = 4; a program walks `steps` tiles, and `programs`
/// of them cover the D rows.
struct RecurrentSplit {
  int64_t perThread = 1, threadsPerRow = 1, rowsPerTile = 1, threads = 1;
  int64_t steps = 1, programs = 1;
  int64_t rowsPerProgram() const { return rowsPerTile * steps; }
};

/// The state is read and written once per token, so the grid should fill
/// the GPU at B = 1: at most two programs per SM of an H100 (132 SMs) over
/// the H heads of one sequence, one round, with at most 16 tiles per program (the
/// partial sums shrink with more, a thread's chain of loads grows).
/// The split of a state of `dim` rows of e columns, H heads.
inline RecurrentSplit recurrentSplitOfDim(int64_t dim, int64_t e, int64_t h) {
  constexpr int64_t kTargetPrograms = 264, kMaxSteps = 16;
  RecurrentSplit s;
  if (e < 1 || h < 1 || dim < 1)
    return s;
  s.perThread = e % 4 == 0 ? 4 : e % 2 == 0 ? 2 : 1;
  s.threadsPerRow = e / s.perThread;
  s.rowsPerTile = std::max<int64_t>(1, 256 / s.threadsPerRow);
  s.threads = s.rowsPerTile * s.threadsPerRow;
  int64_t tiles = dim / s.rowsPerTile + (dim % s.rowsPerTile != 0);
  // ceil(tiles h / target): at most the target (a grid of one more round
  // than it takes 352 blocks for 264 slots at p = 2, d = e = 64, H = 8).
  s.steps = std::clamp<int64_t>(tiles / kTargetPrograms * h +
                                    (tiles % kTargetPrograms * h +
                                     kTargetPrograms - 1) /
                                        kTargetPrograms,
                                1, kMaxSteps);
  s.programs = dim / s.rowsPerProgram() + (dim % s.rowsPerProgram() != 0);
  return s;
}

inline RecurrentSplit recurrentSplit(int64_t p, int64_t d, int64_t e,
                                     int64_t h) {
  return recurrentSplitOfDim(symmetricPowerDim(d, p).value_or(1), e, h);
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_RECURRENTSPLIT_H
