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
  /// Two roles: the consumers hold the program's rows of [S | Z] in
  /// tensor-core accumulators and build Phi^T; the producer loads the
  /// keys, values and gates a step ahead and stages them, in buffers of two
  /// steps, so that one barrier a step orders them. `specialized`: the
  /// producer is a warpgroup of its own (sympow_tile.warpgroups), and the
  /// two consumer warpgroups split each step's tokens: each holds all 64
  /// rows of [S | Z | 0 ...] (e + 8 columns, Z from the MMA against a
  /// column of ones staged beside the values) and builds its half of Phi^T
  /// in registers as the A fragments of its warpgroup MMAs (wgmma on
  /// sm_90a, mma.sync per warp before), which read the values from
  /// workgroup memory; their two partial states are summed through
  /// workgroup memory where a chunk state is written. Where the loads and
  /// accumulators fit 80 registers (at most 64 value columns a program,
  /// wider e split over `columnBlocks`; steps of 64 tokens for 16-bit keys,
  /// at d = 128 with `copiedValues`, of 32 for rotated f32 keys): 33 programs
  /// of 64 rows per head at p = 2, d = 64 put two programs (24 warps) on each
  /// of 132 SMs at B = 1 with 8 heads. Otherwise (in turn) the 256 consumer
  /// threads are the producer too, with single buffers and three barriers a
  /// step; they sit side by side (mma<warps = [4, 2], column_major>), each
  /// warpgroup half the value columns, and build Phi^T in workgroup memory as
  /// bf16 hi + lo, which both multiply. (Before 2026-12-02, with a producer
  /// too: Phi^T in workgroup memory, 16 accumulator floats a consumer thread,
  /// 254 SASS instructions per warp and step of which 16 stored Phi^T, and
  /// Phi^T's stores and MMA reads about half of the pass's shared wavefronts.)
  static constexpr int64_t warpsM = 4, warpsN = 2;
  static constexpr int64_t consumerThreads = 128 * warpsN;
  bool specialized = true;
  /// With a producer of its own at p = 2 and chunks of two steps or more:
  /// each chunk's steps walked last to first, every token weighted by its
  /// decay to the chunk's end (sums of same-signed gates, nothing cancels),
  /// so that the accumulators restart from 0 at each chunk and are never
  /// decayed; warpgroup 0 keeps the state before the chunk in the
  /// exchange's second half and warpgroup 1 adds it, decayed by the chunk's
  /// decay, to the part it hands over at the chunk's end (a barrier or more
  /// later). Otherwise the steps go in order and both accumulators decay
  /// every step (36 multiplies a thread, about a quarter of a consumer's
  /// f32 work).
  bool chunkDecay = false;
  int64_t rowsPerProgram = 64;
  /// Programs along the value columns (with a producer of its own): each
  /// takes e / columnBlocks of them beside its rows' Z (which every block
  /// computes and the last writes), so that e > 64 keeps accumulators of
  /// at most 72 columns a warpgroup. Each block builds the same Phi^T: at
  /// d = e = 128 two blocks with a producer each are predicted at 1.519 ms
  /// at 16K (1.745 in steps of 32), where one program in turn took 2.075
  /// (docs/Performance.md).
  int64_t columnBlocks = 1;
  /// The value columns one program takes.
  int64_t programColumns(int64_t e) const { return e / columnBlocks; }
  /// Programs per (head, sequence): row tiles times column blocks.
  int64_t gridPrograms() const { return programs * columnBlocks; }
  int64_t threads() const { return consumerThreads + (specialized ? 128 : 0); }
  /// Buffers of each array a step writes: two where the producer runs
  /// ahead of the consumers, one where the same threads take turns (the
  /// schedule of three barriers a step).
  int64_t buffers() const { return specialized ? 2 : 1; }
  /// Whether the producer copies bf16 values straight into workgroup
  /// memory (cp.async, 16-byte runs: they are staged as they come) two
  /// steps ahead, into three buffers, instead of holding them in registers
  /// for a step: where a step's loads with them would take more than 32
  /// registers (d = 128 at 64 tokens: 48), so that keys alone are held;
  /// bf16 keys as they come only (bf16Keys).
  bool copiedValues = false;
  /// Buffers of the staged values: the step the consumers read, the next
  /// one, landed, and the one after it, landing.
  int64_t valueBuffers() const { return copiedValues ? 3 : buffers(); }
  /// The threads that load and stage.
  int64_t producerThreads() const {
    return threads() - (specialized ? consumerThreads : 0);
  }
  /// Tokens per step (a multiple of 16, at most 64; of 32 with a producer
  /// of its own): a step waits at its barriers (one with a producer of its
  /// own, three in turn) and computes its index math once, so the longer
  /// the step the less of the pass goes to them.
  int64_t tokensPerStep = 64;
  int64_t programs = 1;

  /// The producer stages each step's weights ready to use (one warp's scan
  /// of the step's gates, two tokens a lane: K <= 64): w_t = exp(the sum
  /// of the gates after t in the step, plus, where the decay is once a
  /// chunk, those of the chunk's later steps), so that the consumers
  /// neither multiply decays nor split weights. `weightHalves`: also as
  /// bf16 hi + lo pairs, for consumers that multiply packed bf16
  /// (packedKeyProducts with a producer of its own): the split of each
  /// pair of weights was about a fifth of a consumer warp's instructions.
  bool weightHalves = false;

  /// The staged values [K x e] as the MMAs' B, N-major core matrices (8
  /// tokens x 8 columns, tokens 16 bytes apart): the bytes between blocks
  /// of 8 columns. One 16-byte slot more than the step's tokens, so that
  /// the 8 threads storing one token's 8 blocks hit 8 different slots.
  int64_t valueBlockBytes() const { return (tokensPerStep + 1) * 16; }
  /// Columns of the staged values: with a producer of its own, a block of
  /// 8 more, [1 0 ... 0] at every token (written once), so that the MMAs
  /// give Z in column e and zeros after it: the chunk states' rows as
  /// chunk_output reads them (ChunkOutputTile::valueColumns).
  int64_t valueColumns(int64_t e) const {
    return programColumns(e) + (specialized ? 8 : 0);
  }
  /// Elements (bf16) of one staged values array (e a multiple of 8).
  int64_t valueElements(int64_t e) const {
    return valueColumns(e) / 8 * valueBlockBytes() / 2;
  }
  /// f32 elements of the array the consumer warpgroups sum their partial
  /// states through (with a producer of its own): two halves of 64 rows of
  /// [S | Z | 0 ...], by chunk parity or, where the decay is once a chunk,
  /// one part and the state before the chunk.
  int64_t exchangeElements(int64_t e) const {
    return specialized ? 2 * exchangePartElements(e) : 0;
  }
  int64_t exchangePartElements(int64_t e) const {
    return rowsPerProgram * valueColumns(e);
  }
  /// Phi^T [R x K] as the MMAs' A, K-major core matrices (8 rows x 8
  /// tokens, rows 16 bytes apart): the bytes between groups of 8 rows,
  /// each group's core matrices 128 bytes apart along the tokens.
  int64_t phiGroupBytes() const { return tokensPerStep * 16; }
  /// The staged keys hold tokens in pairs: row j holds tokens 2j and 2j +
  /// 1, dim i's two elements adjacent (2 i, 2 i + 1), so that Phi^T, which
  /// takes a pair of tokens per thread, reads both with one 8-byte load.
  /// The row stride (f32 words) is the least >= 2 d + 4 that is 8 modulo
  /// 32 (keyRowWords): a warp builds Phi^T for 8 rows and 4 adjacent pairs
  /// of tokens at a time, and the pairs' rows start 8 banks apart, so that
  /// a half warp's 8-byte reads (4 rows' adjacent dims) do not conflict. (A
  /// stride of d = 64 per token put all four on one bank: 3.3-way conflicts
  /// measured on the H100.) Also a multiple of 4: the staging's vector
  /// stores stay 16-byte aligned.
  static int64_t keyPairStride(int64_t d) { return keyRowWords(2 * d); }
  /// The least stride >= `words` + 4 that is 8 modulo 32: the rows start 8
  /// banks apart, with room for keyRowShift.
  static constexpr int64_t keyRowWords(int64_t words) {
    return words + 4 + ((8 - (words + 4) % 32) + 32) % 32;
  }
  /// Elements pair row j of the staged keys starts after j's stride: 4
  /// words where j & 4. The producer's runs (8 words of one row, two
  /// 16-byte stores) go down the rows, so a quarter warp stores 8 rows at
  /// once: 8 banks apart they took only 4 of the 8 16-byte slots of the
  /// banks, two to a slot (the emulator counted twice the wavefronts);
  /// shifted, 8. A consumer's reads take 4 adjacent rows from a multiple of
  /// 4, which share one shift (an immediate offset).
  static constexpr int64_t keyRowShift(int64_t pairRow, bool bf16) {
    return (pairRow & 4) ? (bf16 ? 8 : 4) : 0;
  }
  /// Whether the keys are staged as bf16, as they come (exact; the
  /// consumers extend them by their bits, a shift each, where the producer
  /// converted them): bf16 inputs that nothing rotated. Rotated keys come
  /// f32 from chunk_keys; f16 ones are converted (their extension is a
  /// conversion, and the consumers' spilled at 80 registers).
  static bool bf16Keys(bool f16, bool rotatedKeys) {
    return !f16 && !rotatedKeys;
  }
  /// Whether the consumers multiply the keys as bf16 pairs (their A
  /// fragments' halves in packed bf16 arithmetic, weightedKeyProducts in
  /// ChunkStatePass.cpp): bf16 keys as they come at p = 2, where a product
  /// of two keys has 16 bits and so splits exactly.
  static bool packedKeyProducts(int64_t p, bool f16, bool rotatedKeys) {
    return p == 2 && bf16Keys(f16, rotatedKeys);
  }
  /// The rows of bf16 keys: dim i's pair is one 4-byte word, the row stride
  /// (in elements) twice keyRowWords(d), so that a warp's 4-byte reads (8
  /// rows' dims by 4 adjacent pairs) take 32 banks. f32 keys keep
  /// keyPairStride.
  static int64_t keyRowElements(int64_t d, bool bf16) {
    if (!bf16)
      return keyPairStride(d);
    return 2 * keyRowWords(d);
  }
  /// A consumer thread's accumulator floats: with a producer of its own
  /// all 64 rows of [S | Z | 0 ...] over a warpgroup's 128 threads; else
  /// S's 64 rows x e over the 256 consumer threads (Z in two partial sums a
  /// thread).
  int64_t accumulatorFloats(int64_t e) const {
    return specialized ? rowsPerProgram * valueColumns(e) / 128 : e / 4;
  }
  /// The widest value columns a program with a producer of its own takes.
  static constexpr int64_t kMaxSpecializedColumns = 64;
  /// The fewest column blocks of at most kMaxSpecializedColumns, whole
  /// 8-column pieces and at least 32 columns each (0 where none divides e
  /// so: e = 176 would take 11 of 16, each building the same Phi^T).
  static int64_t columnBlocksOf(int64_t e) {
    for (int64_t blocks =
             (e + kMaxSpecializedColumns - 1) / kMaxSpecializedColumns;
         32 * blocks <= e; ++blocks)
      if (e % (8 * blocks) == 0)
        return blocks;
    return 0;
  }
  /// Programs per SM that ptxas must fit (its register cap): two where the
  /// accumulators take at most 36 floats a thread with a producer of its
  /// own (e <= 64: 24 warps per SM, a cap of 80 registers) or 32 without
  /// (e <= 128: 16 warps, a cap of 128, which ptxas meets without spills at
  /// d = e = 128 too), one where they take more.
  int32_t minProgramsPerSM(int64_t e) const {
    return accumulatorFloats(e) <= (specialized ? 36 : 32) ? 2 : 1;
  }
  /// The producer's staging runs of `rows` rows of `width` elements of
  /// `elementBytes` (a step's tokens by default): vectorRun's, shorter
  /// where it would leave producer threads idle.
  int64_t runLength(int64_t width, int64_t elementBytes,
                    std::optional<int64_t> rows = std::nullopt) const {
    int64_t L = vectorRun(width, elementBytes);
    while (L > 1 &&
           rows.value_or(tokensPerStep) * width < producerThreads() * L)
      L /= 2;
    return L;
  }
  /// The runs of the staged keys (f32 where chunk_keys rotated them, else
  /// the 16-bit inputs): a thread's run is L adjacent dims of a pair of
  /// tokens, loaded as two runs of L and stored as one of 2 L.
  int64_t keyRun(int64_t d, bool rotated) const {
    return runLength(d, rotated ? 4 : 2, tokensPerStep / 2);
  }
  int64_t valueRun(int64_t e) const { return runLength(programColumns(e), 2); }
  /// The registers a producer thread holds a step's loads in (the keys,
  /// f32 where rotated, and the values, 16-bit): a producer of its own
  /// takes at most 32, so that the program keeps 80 registers (rotated keys
  /// at d = 64 ask 48 at 64 tokens, which ptxas spilled; so did d = 128's
  /// 16-bit keys and values at 64 tokens, 4 bytes before the loop at one
  /// head on sm_90a, hence copiedValues); consumers that produce too, fewer
  /// (chunkStatePass below).
  int64_t loadRegisters(int64_t d, int64_t e, bool rotatedKeys) const {
    int64_t values = copiedValues ? 0 : 2 * programColumns(e);
    return tokensPerStep * (d * (rotatedKeys ? 4 : 2) + values) /
           (4 * producerThreads());
  }
  /// Floats of one step's weights: its K weights, then the step's decay
  /// (which the accumulators take where they decay every step) and the
  /// decay from the step's start to its chunk's end (where the decay is
  /// once a chunk: the chunk's decay after its first step of the walk),
  /// padded to 16 bytes.
  int64_t weightElements() const { return tokensPerStep + 4; }
  static constexpr int64_t stepDecayOffset(int64_t tokens) { return tokens; }
  static constexpr int64_t chunkEndDecayOffset(int64_t tokens) {
    return tokens + 1;
  }
  /// bf16 elements of one step's weight halves (where weightHalves): per
  /// pair of tokens its two hi halves, then its two lo halves, so that a
  /// consumer reads a pair's with one 8-byte load.
  int64_t weightHalfElements() const {
    return weightHalves ? 2 * tokensPerStep : 0;
  }
  /// Elements of one step's buffer of the staged keys (f32) and of Phi^T
  /// (each bf16 half): the arrays hold two steps, buffer i % 2 step i's.
  int64_t keyElements(int64_t d, bool bf16) const {
    return tokensPerStep / 2 * keyRowElements(d, bf16);
  }
  /// (In workgroup memory only in turn.)
  int64_t phiElements() const {
    return specialized ? 0 : rowsPerProgram * tokensPerStep;
  }
  /// Workgroup bytes: per buffer a step's keys, values as bf16 (hi and lo
  /// for f16 inputs), weights (and their halves) and, in turn, Phi^T of the
  /// program's rows (bf16 hi and lo); phi's factor of each row (applied where
  /// the state is read and written); with a producer of its own its reciprocal,
  /// the initial Z over it and the exchange of partial states.
  int64_t sharedBytes(int64_t d, int64_t e, bool splitValues,
                      bool rotatedKeys) const {
    int64_t valueBytes = 2 * valueElements(e) * (splitValues ? 2 : 1);
    bool bf16 = bf16Keys(splitValues, rotatedKeys);
    int64_t keyBytes = (bf16 ? 2 : 4) * keyElements(d, bf16);
    return buffers() * (keyBytes + 4 * weightElements() +
                        2 * weightHalfElements() + 2 * 2 * phiElements()) +
           valueBuffers() * valueBytes +
           4 * rowsPerProgram * (specialized ? 3 : 1) +
           4 * exchangeElements(e) +
           (specialized ? 8 : 0); // the final rows' start (an i64)
  }
};

/// chunk_counts (compiler/lib/GPU/ChunkCounts.cpp): one program per
/// (head, sequence) walks it in tiles of threads x tokensPerThread tokens.
/// The more threads, the fewer tiles in turn and loads per thread (each
/// token's beta is one load: tokens are H floats apart): 512 threads fit
/// in 98 registers; at 1024 (a cap of 64) ptxas spilled 48 to 52 bytes.
struct ChunkCountsSplit {
  static constexpr int64_t threads = 512, tokensPerThread = 8;
  static constexpr int64_t warps = threads / 32;
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
/// kernels f32's 24) or arrays beyond what two programs of an H100 fit in
/// its 228 KB (dynamic shared memory; an A100's 164 KB then holds one).
/// Steps are the longest that fit and no longer than a chunk (a step never
/// straddles two); a producer of its own where it fits at 64 tokens or 32
/// (rotated keys at d = 64: the emulator's counts predicted 0.0548 ms in
/// turn against 0.0479 at 2K).
inline std::optional<ChunkStatePass>
chunkStatePass(int64_t p, int64_t d, int64_t e, int64_t chunk,
               int64_t elementBytes, bool f16, bool rotatedKeys) {
  std::optional<int64_t> dim = symmetricPowerDim(d, p);
  if (elementBytes == 4 || !dim)
    return std::nullopt;
  ChunkStatePass s;
  s.weightHalves = ChunkStatePass::packedKeyProducts(p, f16, rotatedKeys);
  s.programs =
      std::max<int64_t>(1, (*dim + s.rowsPerProgram - 1) / s.rowsPerProgram);
  // (f16 values split beside rotated keys spilled at 80: d = 32, e = 64;
  // so did p = 4's rotated f32 keys at d = 64 in steps of 32.)
  s.columnBlocks = ChunkStatePass::columnBlocksOf(e);
  for (int64_t tokens : {64, 32}) {
    if (s.columnBlocks == 0) // no split of e: in turn
      break;
    s.tokensPerStep = tokens;
    // bf16 values copied where holding them would pass 32 registers,
    // beside bf16 keys as they come (rotated f32 keys at d = 64 in steps of
    // 64, their loads 32 registers alone, spilled 8 to 28 bytes).
    s.copiedValues = false;
    bool heldPast32 = s.loadRegisters(d, e, rotatedKeys) > 32;
    s.copiedValues = heldPast32 && ChunkStatePass::bf16Keys(f16, rotatedKeys);
    if (chunk >= tokens && (tokens == 64 || p == 2) &&
        s.loadRegisters(d, e, rotatedKeys) <= 32 && !(f16 && rotatedKeys) &&
        s.sharedBytes(d, e, f16, rotatedKeys) <= kSharedBytesForTwoH100Blocks) {
      // (A chunk of one step decays once a chunk already. At p = 4 the
      // decay carried through the loop beside four keys' offsets a row
      // spilled 8 bytes on sm_80 at d = 32.)
      s.chunkDecay = chunk > tokens && p == 2;
      return s;
    }
  }
  s.specialized = false;
  s.weightHalves = false;
  s.columnBlocks = 1;
  s.copiedValues = false;
  // Threads that also consume hold their loads beside the accumulators:
  // at most 24 registers of them (16 with f16's hi + lo values: p = 4, d =
  // 64 spilled at 24 at two programs per SM).
  int64_t loadCap = f16 ? 16 : 24;
  for (int64_t tokens : {64, 32, 16}) {
    s.tokensPerStep = tokens;
    if (tokens > 16 &&
        (tokens > chunk || s.loadRegisters(d, e, rotatedKeys) > loadCap))
      continue;
    if (s.sharedBytes(d, e, f16, rotatedKeys) <= kSharedBytesForTwoH100Blocks)
      return s;
  }
  return std::nullopt;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_CHUNKSTATEPASS_H
