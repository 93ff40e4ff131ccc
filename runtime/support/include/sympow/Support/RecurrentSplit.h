//===- RecurrentSplit.h - How the recurrent kernels split a state ---------===//
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
/// The call length (a decoding step) at which recurrent_state's last
/// program per state reduces the partial sums into y itself, so that
/// recurrent_output is not launched: the kernel's branch and the runtime's
/// launch list both ask this.
constexpr int64_t kTokensStateKernelFinishes = 1;

struct RecurrentSplit {
  int64_t perThread = 1, threadsPerRow = 1, rowsPerTile = 1, threads = 1;
  int64_t steps = 1, programs = 1;
  /// Programs per SM that ptxas must fit (recurrentProgramsPerSM).
  int32_t programsPerSM = 2;
  int64_t rowsPerProgram() const { return rowsPerTile * steps; }
};

/// Programs of 256 threads per SM that ptxas must fit: three (80
/// registers: 76 at p = 2, d = e = 64, no spills on sm_80 or sm_90a) for
/// p = 2 with 16-bit inputs; the rest keep ptxas' own choice (117 to 154
/// registers: two or one per SM), where the multiset of p > 2 or the f64
/// arithmetic of f32 inputs spilled at 80. More programs per SM hold more
/// loads of the state in flight: the kernel is bound by DRAM and by the
/// memory latency of its threads' chains.
inline int32_t recurrentProgramsPerSM(int64_t p, bool sixteenBit) {
  return p == 2 && sixteenBit ? 3 : 2;
}

/// The state is read and written once per token, so the grid should fill
/// the GPU at B = 1: `programsPerSM` programs per SM of an H100 (132 SMs)
/// over the H heads of one sequence, one round, with at most 16 tiles per
/// program (the partial sums shrink with more, a thread's chain of loads
/// grows). The split of a state of `dim` rows of e columns, H heads.
inline RecurrentSplit recurrentSplitOfDim(int64_t dim, int64_t e, int64_t h,
                                          int32_t programsPerSM) {
  constexpr int64_t kMaxSteps = 16;
  const int64_t kTargetPrograms = 132 * int64_t(programsPerSM);
  RecurrentSplit s;
  s.programsPerSM = programsPerSM;
  if (e < 1 || h < 1 || dim < 1)
    return s;
  s.perThread = e % 4 == 0 ? 4 : e % 2 == 0 ? 2 : 1;
  s.threadsPerRow = e / s.perThread;
  s.rowsPerTile = std::max<int64_t>(1, 256 / s.threadsPerRow);
  s.threads = s.rowsPerTile * s.threadsPerRow;
  int64_t tiles = dim / s.rowsPerTile + (dim % s.rowsPerTile != 0);
  // ceil(tiles h / target): at most the target (a grid of one more round
  // than it takes 352 blocks for 264 slots at p = 2, d = e = 64, H = 8).
  s.steps = std::clamp<int64_t>(
      tiles / kTargetPrograms * h +
          (tiles % kTargetPrograms * h + kTargetPrograms - 1) / kTargetPrograms,
      1, kMaxSteps);
  s.programs = dim / s.rowsPerProgram() + (dim % s.rowsPerProgram() != 0);
  return s;
}

inline RecurrentSplit recurrentSplit(int64_t p, int64_t d, int64_t e, int64_t h,
                                     bool sixteenBit) {
  return recurrentSplitOfDim(symmetricPowerDim(d, p).value_or(1), e, h,
                             recurrentProgramsPerSM(p, sixteenBit));
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_RECURRENTSPLIT_H
