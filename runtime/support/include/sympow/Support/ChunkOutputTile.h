//===- ChunkOutputTile.h - How the tile chunk_output splits a chunk -*- C++
//-*-===//
//
// chunk_output as a tile kernel (compiler/lib/GPU/ChunkOutput.cpp): program
// (x, query head, sequence) takes query rows [x R, x R + R), which lie in one
// chunk (R divides the chunk), or a whole chunk shorter than R (`rowSpan`).
// It first multiplies phi(Q) with the state before the chunk, F state rows
// per step (for p = 2 without phi(Q): as sum_a q_a (Q [S_a | Z_a]),
// `factorsState`), then walks the chunk's keys up to its diagonal K at a
// time as FlashAttention-2 does, with the state's contribution as the
// starting point of the running maximum. Its workgroup arrays do not grow
// with the chunk, so chunks can be long. The generator, the runtime's
// kernel arguments and the GPU model's estimates all decide here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_CHUNKOUTPUTTILE_H
#define SYMPOW_SUPPORT_CHUNKOUTPUTTILE_H

#include "sympow/Support/GpuLimits.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace sympow {

/// The longest chunk the chunked kernels take (tile chunk_output and
/// chunk_state_pass; the scalar kernels of f32 layers stop at 256).
constexpr int64_t kLongestChunk = 4096;

/// Value columns a program takes where [V | 1] (or [S | Z]) is too wide for
/// one program's accumulators: the attention and chunk_output tile kernels
/// then split y into blocks of at most this many columns, one program each.
constexpr int64_t kValueBlockColumns = 64;

/// Blocks of e value columns, each a whole number of 8-column pieces: the
/// fewest of at most kValueBlockColumns, or (where those would be narrower
/// than 32 columns: e = 176, 208) of at most 128.
inline int64_t valueColumnBlocks(int64_t e) {
  for (int64_t widest : {kValueBlockColumns, 2 * kValueBlockColumns})
    for (int64_t blocks = (e + widest - 1) / widest; blocks <= e / 8; ++blocks)
      if (e % blocks == 0 && e / blocks % 8 == 0) {
        if (e / blocks >= 32 || widest > kValueBlockColumns)
          return blocks;
        break;
      }
  return 1;
}

struct ChunkOutputTile {
  /// Query rows per program: 16 per warp, one warp column (mma<warps =
  /// [R / 16, 1]>), so that P feeds P [V | 1] in registers. 128 (two
  /// warpgroups) where the state steps come by bulk copies
  /// (`pairedWarpgroups`).
  int64_t rowsPerProgram = 64;
  /// Query rows a program takes: rowsPerProgram, which then divides the
  /// chunk, or a whole chunk shorter than it (the rows past the chunk are
  /// masked like rows past T). Program x starts at row x rowSpan.
  int64_t rowSpan = 64;
  /// Keys per step of the causal part and state rows per step of phi(Q) S
  /// (of one a's [S_a | Z_a] when `factorsState`).
  int64_t keysPerStep = 32, stateRowsPerStep = 32;
  /// Whether q and k go to the tensor cores as bf16 hi + lo halves: they
  /// are f32 after a rotation, and f16 is not exact in bf16. Unrotated
  /// bf16 inputs are exact as they are (one product instead of three).
  bool splitScores = true;
  /// f16 values as bf16 hi + lo; bf16 ones are exact.
  bool splitValues = false;
  /// Whether the key steps are warpgroup MMAs (programs of two warpgroups,
  /// and rotated bf16 programs of one with the state's warpgroup MMAs): a
  /// step's keys and [V | 1] staged in the MMAs' canonical layouts
  /// (compiler/lib/GPU/KeySteps.h; by cp.async, rotated f32 keys as bf16 hi
  /// + lo through registers), the scores Q K^T with q's A fragments from
  /// registers (three products where q and k are split) and P [V | 1] with
  /// P's, so that each warpgroup reads the step's keys and values once,
  /// where each warp read them all by ldmatrix for mma.sync; a warpgroup
  /// whose rows all lie before a step's first key skips it.
  bool warpgroupKeys = false;
  /// p = 2: the state's part as sum_a q_a (Q [S_a | Z_a]), where [S_a | Z_a]
  /// are the state rows of multisets (a, b), b >= a, weighted and placed at
  /// row b (zero rows below a): the dots take q itself, no phi(Q) is built.
  /// The state rows of one a (from a's 16-row block to the last dim) are
  /// staged F rows at a time (`stateBuffers`); each a's row factors q_a
  /// are read from column a of q as staged.
  bool factorsState = false;
  /// Buffers of F state rows (factored part): with two, each step's rows
  /// are copied (cp.async) while the step before computes.
  int64_t stateBuffers = 1;
  /// Programs along the value columns: 1, or valueColumnBlocks(e) where
  /// [S | Z] is wider than 136 columns (e > 128: 4 blocks of 64 at e =
  /// 256): each computes the same scores, [S | Z]'s columns of its block
  /// plus Z, and its block of y. The methods below that take e take the
  /// layer's and mean a program's columns.
  int64_t columnBlocks = 1;
  int64_t programColumns(int64_t e) const { return e / columnBlocks; }

  int64_t warps() const { return rowsPerProgram / 16; }
  int64_t threads() const { return 32 * warps(); }
  /// Whether the factored part multiplies by warpgroup MMA (wgmma on
  /// sm_90a, as mma.sync before): one warpgroup of 64 rows reads each
  /// step's state rows once, staged as N-major core matrices, where each
  /// of its 4 warps read them all with ldmatrix. With two buffers only:
  /// the MMAs of a step run while the next step's copies land. Rows of at
  /// most 136 columns (e <= 128): one MMA's N is at most 256, and a
  /// thread's accumulators of both kinds (N / 2 floats each) must fit.
  bool warpgroupState(int64_t e) const {
    return factorsState && stateBuffers == 2 &&
           (rowsPerProgram == 64 || pairedWarpgroups()) &&
           valueColumns(programColumns(e)) <= 136;
  }
  /// Programs of 128 rows, two warpgroups stacked: both multiply their rows
  /// by each staged state step (one copy serves twice the rows, and the
  /// chunk's state is read from L2 half as often) and stage each key step
  /// together (half the staging a thread).
  bool pairedWarpgroups() const { return rowsPerProgram == 128; }
  /// Keys per step of warpgroup key steps: 64 where a row of [V | 1] has at
  /// most 72 columns (a thread's 32 scores beside its 36 accumulators, as
  /// in the attention kernel), the chunk is longer than a program, and the
  /// copies of a step's keys and values go in passes of whole 8-row groups
  /// (d and a program's e powers of two: each thread then keeps one run's
  /// offsets for all its passes), else 32. ptxas spilled at 64 at two
  /// programs per SM where value columns are split over programs (e = 256,
  /// sm_90a), at d = 48 (each pass's offsets of its own), and at chunks of
  /// 128 (the two steps, both masked, of a whole-chunk program).
  int64_t warpgroupKeysPerStep(int64_t chunk, int64_t d, int64_t e) const {
    int64_t EV = programColumns(e);
    auto wholeGroups = [&](int64_t columns) {
      return threads() % columns == 0;
    };
    bool wide = !splitScores && columnBlocks == 1 && valueColumns(EV) <= 72 &&
                chunk > rowsPerProgram && wholeGroups(keyColumns(d)) &&
                wholeGroups(EV);
    return wide ? 64 : 32;
  }
  /// Whether a step's state rows come by bulk copies from one thread (an
  /// mbarrier per buffer), where the warpgroup MMA takes q unsplit: a
  /// rotated (or f16) q's lo half beside them took the registers of a
  /// fourth program per SM; those copy 16-byte runs in every thread.
  bool bulkState(int64_t e) const { return warpgroupState(e) && !splitScores; }
  /// Whether the operand arrays have a lo half: phi(Q) is built as hi + lo,
  /// and split scores take the keys' lo halves.
  bool operandLo() const { return splitScores || !factorsState; }
  /// Head dims as the dots see them: d rounded up to a k step.
  static int64_t keyColumns(int64_t d) { return (d + 15) / 16 * 16; }
  /// Row stride of the staged q and k halves (ldmatrixRowStride, as the
  /// other staged arrays).
  static int64_t keyStride(int64_t d) {
    return ldmatrixRowStride(keyColumns(d));
  }
  /// [V | 1] and [S | Z] as the dot sees them: e columns, the ones (or Z)
  /// column at e, whole 8-column pieces.
  static int64_t valueColumns(int64_t e) { return (e + 8) / 8 * 8; }
  static int64_t valueStride(int64_t e) {
    return ldmatrixRowStride(valueColumns(e));
  }
  /// The chunk states as this kernel reads them (chunk_state_pass writes
  /// them so, KernelArg::ChunkStateHalves): per (sequence, chunk, head) the
  /// hi then the lo bf16 half of w_f [S_f | Z_f | 0 ...], `dim` rows of
  /// valueColumns(e), w_f = scale^p times phi's multinomial factor of row f.
  /// Staging a piece of it is then a copy of whole 16-byte runs: no
  /// conversion, no weight, Z already in its column. A half holds its rows
  /// one after the other, or, where bulk copies read it (`bulkState`), its
  /// 8-column pieces one after the other, each piece its `dim` rows'
  /// 16-byte runs in row order: the rows of a piece that a step stages are
  /// then one run of global memory, which one bulk copy moves
  /// (stateOffset). (Row by row a thread's stores of a chunk state are
  /// one address and small offsets; in pieces, at p = 4 (52360 rows) the
  /// offsets passed what a store instruction holds and spilled 268 bytes.)
  static int64_t stateHalfElements(int64_t dim, int64_t e) {
    return dim * valueColumns(e);
  }
  /// Elements of one 8-column piece of a half in pieces.
  static int64_t statePieceElements(int64_t dim) { return dim * 8; }
  /// Where element (row f, column c) of [S | Z] lies in a half.
  static int64_t stateOffset(int64_t dim, int64_t e, bool pieces, int64_t f,
                             int64_t c) {
    return pieces ? c / 8 * statePieceElements(dim) + f * 8 + c % 8
                  : f * valueColumns(e) + c;
  }
  static int64_t stateSlotElements(int64_t dim, int64_t e) {
    return 2 * stateHalfElements(dim, e);
  }
  int64_t phiStride() const { return ldmatrixRowStride(stateRowsPerStep); }
  /// Programs per SM that ptxas must fit, where a thread's [num | den]
  /// accumulators take at most 36 floats (e <= 64), else one (ptxas' own
  /// choice): of 128 threads four (a cap of 128 registers) for bf16 values,
  /// which ptxas fits without spills (rotated q and k too, since their key
  /// fragments load in ldmatrix x4 pairs), three (168) for f16 values,
  /// whose hi + lo halves spilled 8 to 12 bytes at 128; of 256 (two
  /// warpgroups, bf16 values) two, the same 128 registers.
  int32_t minProgramsPerSM(int64_t e) const {
    if (valueColumns(programColumns(e)) / 2 > 36)
      return 1;
    if (threads() == 256 && !splitValues)
      return 2; // 128 registers, as four programs of 128 threads
    if (threads() != 128)
      return 1;
    return splitValues ? 3 : 4;
  }
  /// The registers a thread may take under that: 65536 per SM shared by
  /// the programs' threads (kernels of one program per SM: ptxas' 255).
  int64_t registerCap(int64_t e) const {
    return sympow::registerCap(minProgramsPerSM(e), threads());
  }
  /// Workgroup bytes a split may take: a block's most dynamic shared
  /// memory on every target where programs of two warpgroups hold an SM
  /// alone by their registers (d = e = 128: two buffers of 64 state rows,
  /// 114 KB); what two programs of every target fit where registers allow
  /// at most two (e > 64 in programs of 64 rows; programs of two
  /// warpgroups at e <= 64: two buffers of 64 rows, 66 KB at d = e = 64),
  /// else the static 48 KiB.
  int64_t sharedBudget(int64_t e) const {
    bool alone = minProgramsPerSM(e) == 1;
    if (pairedWarpgroups())
      return alone ? kMaxSharedBytesPerBlock : kSharedBytesForTwoBlocks;
    return alone ? kSharedBytesForTwoBlocks : kStaticSharedBytes;
  }
  /// Elements of the two arrays that hold phi(Q) (the factored part needs
  /// none) or a step's keys, and of the two that hold a step's state rows
  /// or values (bf16 halves each).
  int64_t operandElements(int64_t d) const {
    int64_t state = factorsState ? 0 : rowsPerProgram * phiStride();
    // Warpgroup key steps: canonical, unpadded.
    int64_t keys = warpgroupKeys ? keyColumns(d) : keyStride(d);
    return std::max(state, keysPerStep * keys);
  }
  /// Rows of one buffer of a step's state rows as its 8-column pieces lie
  /// (each piece's rows 16 bytes apart): for the warpgroup MMA the N-major
  /// core matrices of F rows and a few 16-byte slots more, so that the 8
  /// runs a quarter warp copies (adjacent runs of the chunk state, along a
  /// row and into the next) land in 8 distinct 16-byte bank slots: run j =
  /// P k + c (row k, piece c of P) goes to slot c FP + k, which is alpha j
  /// modulo 8 where FP = alpha = 1 / P modulo 8 (P odd; e.g. FP = 33 at e =
  /// 64, 37 at e = 32). At FP = F they all took slot k % 8 of their row k
  /// (the emulator counted 4 to 6 wavefronts a 512-byte copy instruction
  /// where 4 is the least). Else row-major, valueStride apart.
  int64_t statePieceRows(int64_t e) const {
    int64_t P = valueColumns(programColumns(e)) / 8, F = stateRowsPerStep;
    if (P % 2 == 0)
      return F + 1;
    int64_t alpha = 1;
    while (alpha * P % 8 != 1)
      alpha += 2;
    int64_t FP = F + 1;
    while (FP % 8 != alpha)
      ++FP;
    return FP;
  }
  int64_t stateBufferElements(int64_t e) const {
    int64_t NV = valueColumns(programColumns(e));
    return warpgroupState(e)
               ? NV * statePieceRows(e)
               : stateRowsPerStep * valueStride(programColumns(e));
  }
  int64_t rowElements(int64_t e) const {
    int64_t EV = programColumns(e);
    int64_t values = warpgroupKeys ? valueColumns(EV) : valueStride(EV);
    return std::max(stateBuffers * stateBufferElements(e),
                    keysPerStep * values);
  }
  /// Floats of a key step's gate sums: each key's sum of the gates after
  /// it, 2 to that power, the step's sum (padded to 16 bytes).
  static int64_t keyGateElements(int64_t keys) { return 2 * keys + 4; }
  /// Workgroup bytes: q's halves, the operand arrays (hi, and lo where
  /// `operandLo`), the two arrays of state rows or values, the
  /// query rows' gate prefix and its scan's buffer, the key step's gate
  /// sums and the block sum's buffer (one float per thread).
  int64_t sharedBytes(int64_t d, int64_t e) const {
    int64_t queries = rowsPerProgram * keyStride(d) * (splitScores ? 2 : 1);
    return 2 * (queries + (operandLo() ? 2 : 1) * operandElements(d) +
                2 * rowElements(e)) +
           4 * (3 * rowsPerProgram + keyGateElements(keysPerStep) + threads()) +
           (bulkState(e) ? 48 : 0); // the mbarriers, kept starts and ids
  }
};

/// The split for chunks of `chunk` tokens at power `p`, or none: f32
/// inputs (as chunk_state_pass, whose chunk states and rotated keys it
/// reads: `statePass`), chunks longer than 64 that no 16-row tile divides,
/// arrays beyond `sharedBudget`. A chunk of at most 64 tokens is one
/// program's (the least tile of 16, 32 or 64 rows that holds it) unless a
/// tile divides it. At each program size the factored state part (p = 2)
/// comes first, with the longest double-buffered state steps that fit.
inline std::optional<ChunkOutputTile> chunkOutputTile(int64_t chunk, int64_t p,
                                                      int64_t d, int64_t e,
                                                      bool f16, bool rotates,
                                                      bool statePass) {
  if (!statePass || chunk < 1 || chunk > kLongestChunk)
    return std::nullopt;
  ChunkOutputTile s;
  s.splitScores = f16 || rotates;
  s.splitValues = f16;
  if (ChunkOutputTile::valueColumns(e) > 136)
    s.columnBlocks = valueColumnBlocks(e);
  int64_t DK = ChunkOutputTile::keyColumns(d);
  for (int64_t rows : {128, 64, 32, 16}) {
    if (chunk % rows == 0)
      s.rowSpan = rows;
    else if (rows < 128 && chunk < rows && (chunk > rows / 2 || rows == 16))
      s.rowSpan = chunk;
    else
      continue;
    s.rowsPerProgram = rows;
    for (bool factors : {true, false}) {
      if (factors && p != 2)
        continue;
      s.factorsState = factors;
      for (int64_t keys : {64, 32, 16}) {
        s.keysPerStep = keys;
        // The factored part double-buffers steps of 32 or 16 rows where
        // they fit, else stages up to 64 in one buffer.
        using Steps = std::pair<int64_t, int64_t>; // rows, buffers
        for (auto [stateRows, buffers] :
             {Steps{64, 2}, Steps{32, 2}, Steps{16, 2}, Steps{64, 1},
              Steps{32, 1}, Steps{16, 1}}) {
          s.stateBuffers = factors ? buffers : 1;
          s.stateRowsPerStep = factors ? std::min(DK, stateRows) : keys;
          // Two warpgroups only where the state steps come by bulk copies,
          // in the longest steps (else 64 rows with them: shorter steps pay
          // their barriers and staging twice as often): two buffers of 64
          // rows where d is a multiple of 64 (at d = 64 all of an a's rows,
          // one step an a) and they fit, else 32 (d = 48 in steps of 48
          // spilled on sm_80).
          // Their key steps are warpgroup MMAs, and so are those of rotated
          // bf16 programs of 64 rows with the state's warpgroup MMAs; the
          // others' mma.sync in steps of 32 or 16.
          if (s.pairedWarpgroups() && (!s.bulkState(e) || stateRows < 32 ||
                                       (stateRows == 64 && DK % 64 != 0)))
            continue;
          if (!s.pairedWarpgroups() && stateRows == 64 && buffers == 2)
            continue;
          s.warpgroupKeys =
              s.pairedWarpgroups() ||
              (rows == 64 && s.rowSpan == rows && s.splitScores &&
               !s.splitValues && s.warpgroupState(e));
          if (s.warpgroupKeys ? keys != s.warpgroupKeysPerStep(chunk, d, e)
                                  : keys > 32)
            continue;
          if (s.sharedBytes(d, e) <= s.sharedBudget(e))
            return s;
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_CHUNKOUTPUTTILE_H
