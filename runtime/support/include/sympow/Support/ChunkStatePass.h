//===- ChunkStatePass.h - How chunk_state_pass splits a state ---*- C++ -*-===//
//
// chunk_state_pass (compiler/lib/GPU/ChunkStatePass.cpp) walks the tokens of
// each (head, sequence) once and writes the state before every chunk,
// parallel over tiles of whole state rows: program (x, h, b) keeps rows
// [x R, x R + R) of [S | Z] in tensor-core accumulators and takes the
// tokens in steps of K. It replaces chunk_states + chunk_scan for 16-bit
// inputs when its workgroup arrays fit; the generator, the runtime's
// kernel list and the GPU model's estimates all decide here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_CHUNKSTATEPASS_H
#define SYMPOW_SUPPORT_CHUNKSTATEPASS_H

#include "sympow/Support/GpuLimits.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace sympow {

struct ChunkStatePass {
  /// Eight warps, 4 over the rows and 2 over the columns (mma<warps =
  /// [4, 2]>): 33 programs of 64 rows per head at p = 2, d = 64, so that
  /// B = 1 with 8 heads fills 132 SMs in one round. (Sixteen warps, [4, 4]
  /// with two programs per SM at 64 registers, fit without spills at p = 2
  /// once Z is summed per row, but every warp column reads Phi^T again and
  /// a warp's key reads conflict two ways: 48% more shared-memory
  /// wavefronts a step, which then bound the pass; docs/Performance.md.)
  static constexpr int64_t warpsM = 4, warpsN = 2;
  int64_t threads = 256, rowsPerProgram = 64;
  /// Tokens per step (a multiple of 16, at most 64): a step waits at three
  /// barriers and computes its index math once, so the longer the step the
  /// less of the pass goes to them.
  int64_t tokensPerStep = 64;
  int64_t programs = 1;

  /// Tokens of one segment, a warp's lanes at most: the gates are summed
  /// per segment by a scan of shuffles, and the dots take one segment at a
  /// time with the state decaying between them.
  int64_t segmentTokens() const {
    return tokensPerStep < 32 ? tokensPerStep : 32;
  }
  int64_t segments() const { return tokensPerStep / segmentTokens(); }

  /// Value columns as the dot sees them: e rounded up to whole mma tiles
  /// of the warp columns.
  static int64_t valueColumns(int64_t e) {
    return (e + 8 * warpsN - 1) / (8 * warpsN) * (8 * warpsN);
  }
  /// Row stride of the staged values (bf16).
  static int64_t valueStride(int64_t e) {
    return ldmatrixRowStride(valueColumns(e));
  }
  /// Row stride of the staged keys (f32 words): the least >= d that is 4
  /// modulo 32. A warp builds Phi^T for 8 rows and 4 adjacent pairs of
  /// tokens at a time; the pairs' key rows start 8 banks apart, so the
  /// reads do not conflict (a stride of d = 64 put all four on one bank:
  /// 3.3-way conflicts measured on the H100). Also a multiple of 4: the
  /// staging's vector stores stay 16-byte aligned.
  static int64_t keyStride(int64_t d) { return d + ((4 - d % 32) + 32) % 32; }
  /// Programs per SM that ptxas must fit (its register cap): two where
  /// the accumulators take at most 16 floats a thread (d = e = 64: 16
  /// warps per SM, 110 registers instead of 135 and one program), one
  /// where they take more (d = e = 128: a cap of 128 would spill).
  int32_t minProgramsPerSM(int64_t e) const {
    return rowsPerProgram * valueColumns(e) / threads <= 16 ? 2 : 1;
  }
  /// Row stride of Phi^T's bf16 halves.
  int64_t phiStride() const { return ldmatrixRowStride(tokensPerStep); }
  /// Staging runs of a step's rows of `width` elements of `elementBytes`:
  /// vectorRun's, shorter where it would leave threads idle.
  int64_t runLength(int64_t width, int64_t elementBytes) const {
    int64_t L = vectorRun(width, elementBytes);
    while (L > 1 && tokensPerStep * width < threads * L)
      L /= 2;
    return L;
  }
  /// The runs of the staged keys (f32 where chunk_keys rotated them, else
  /// the 16-bit inputs) and of the values (16-bit).
  int64_t keyRun(int64_t d, bool rotated) const {
    return runLength(d, rotated ? 4 : 2);
  }
  int64_t valueRun(int64_t e) const { return runLength(e, 2); }
  /// Floats of the weights array: a step's weights, then the decays from
  /// each of its tokens on.
  int64_t weightElements() const { return 2 * tokensPerStep; }
  /// Workgroup bytes: the step's keys (f32), its values as bf16 (hi and
  /// lo for f16 inputs), Phi^T of the program's rows (bf16 hi and lo), the
  /// weights array, and phi's factor of each row (applied where the state
  /// is read and written).
  int64_t sharedBytes(int64_t d, int64_t e, bool splitValues) const {
    int64_t valueBytes = 2 * valueStride(e) * (splitValues ? 2 : 1);
    return tokensPerStep * (4 * keyStride(d) + valueBytes) +
           4 * weightElements() + rowsPerProgram * (phiStride() * 4 + 4);
  }
};

/// chunk_keys, which rotates the keys once for the pass (rotating
/// schedules): programs of `tokensPerProgram` tokens per (head, sequence),
/// each thread a run of adjacent dims (4 where d allows and every thread
/// gets one, else 1). The generator and the estimates decide here.
struct ChunkKeysSplit {
  static constexpr int64_t threads = 256, tokensPerProgram = 16;
  static int64_t runLength(int64_t d) {
    return d % 4 == 0 && tokensPerProgram * d >= 4 * threads ? 4 : 1;
  }
};

/// The split for phi^p of d dims (a state of D rows, SymmetricPowerDim.h)
/// and chunks of `chunk` tokens, or
/// none when the chunked formulation keeps chunk_states + chunk_scan: f32
/// inputs (the pass's split-bf16 products carry about 16 bits, the scalar
/// kernels f32's 24) or arrays beyond the static workgroup memory. Steps
/// are the longest that fit and no longer than a chunk (a step never
/// straddles two).
inline std::optional<ChunkStatePass> chunkStatePass(int64_t p, int64_t d,
                                                    int64_t e, int64_t chunk,
                                                    int64_t elementBytes,
                                                    bool f16) {
  std::optional<int64_t> dim = symmetricPowerDim(d, p);
  if (elementBytes == 4 || !dim)
    return std::nullopt;
  ChunkStatePass s;
  s.programs =
      std::max<int64_t>(1, (*dim + s.rowsPerProgram - 1) / s.rowsPerProgram);
  for (int64_t tokens : {64, 32, 16}) {
    s.tokensPerStep = tokens;
    if (tokens > 16 && tokens > chunk)
      continue;
    if (s.sharedBytes(d, e, f16) <= kStaticSharedBytes)
      return s;
  }
  return std::nullopt;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_CHUNKSTATEPASS_H
