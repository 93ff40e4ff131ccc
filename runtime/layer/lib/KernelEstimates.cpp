//===- KernelEstimates.cpp - A formulation's launches, before any run -----===//
//
// Per-unit figures (per key tile of the attention kernel, per state row and
// token of the chunked kernels, per state element of the scan and the
// recurrent step) are what the emulator counts for today's generators at
// p = 2, d = e = 64, bf16 (perf/h100-calibration.json); test/Perf checks
// the predicted times they give against the emulator's counts at other
// sizes.
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/KernelEstimates.h"
#include "sympow/Runtime/Layer.h"

#include "sympow/Support/AttentionTile.h"
#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/ChunkScanSplit.h"
#include "sympow/Support/ChunkStatePass.h"
#include "sympow/Support/GpuLimits.h"
#include "sympow/Support/RecurrentSplit.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace sympow;
using runtime::Formulation;

namespace {

// Counts and grid dims saturate: a layer the compiler is asked about may be
// far larger than any launch (select-formulation on arbitrary IR).
uint64_t u(double x) {
  if (!(x > 0))
    return 0;
  double r = std::round(x); // as llround: halves away from zero
  return r >= 18446744073709551616.0 ? UINT64_MAX : uint64_t(r);
}
uint32_t g(double x) {
  if (!(x > 0))
    return 0;
  double r = std::round(x);
  return r >= 4294967295.0 ? UINT32_MAX : uint32_t(r);
}

/// A launch: its shape, the work of all blocks and of the heaviest.
LaunchCounts launch(std::array<uint32_t, 3> grid, uint32_t threads,
                    const OpCounts &total, const OpCounts &heaviest,
                    double distinctLoads, double distinctStores) {
  LaunchCounts c;
  c.grid = grid;
  c.block = {threads, 1, 1};
  c.total = total;
  c.heaviest = heaviest;
  c.globalLoadDistinctBytes = u(distinctLoads);
  c.globalStoreDistinctBytes = u(distinctStores);
  return c;
}

/// Scales every field of `unit` by `n`.
OpCounts times(const OpCounts &unit, double n) {
  OpCounts out = unit;
  forEachCount(out, [&](const char *, uint64_t &v) { v = u(double(v) * n); });
  return out;
}

/// Takes `by` from every field of `from`, none below 0 (counts are
/// unsigned: a difference below 0 would wrap).
void minus(OpCounts &from, const OpCounts &by) {
  for (int i = 0; i < kNumCounts; ++i)
    countAt(from, i) -= std::min(countAt(from, i), countAt(by, i));
}

/// A size as an integer for the split helpers, saturated (a state of 2^36
/// rows, a head of 2^24 columns): estimates are asked about any layer the
/// IR can describe, and the helpers multiply sizes in int64_t.
int64_t rows(double x) { return int64_t(std::min(x, 68719476736.0)); }
int64_t cols(double x) { return int64_t(std::min(x, 16777216.0)); }

struct Sizes {
  double B, T, Hq, H, d, e, D, s, p;
  bool tensorCores, learned, rotates, relative;
  int64_t tokens; // T exactly (T as a double may exceed int64_t's range)
  LayerSizes layer;
};

Sizes sizesOf(const LayerSizes &l) {
  return {double(l.batch),     double(l.seqLen),       double(l.queryHeads),
          double(l.keyHeads),  double(l.headDim),      double(l.valueDim),
          embeddingDim(l),     double(l.elementBytes), double(l.power),
          l.elementBytes != 4, l.learnedSchedule,      l.rotatingSchedule,
          l.relativeSchedule,  int64_t(l.seqLen),      l};
}

/// Inputs, outputs and gates every formulation reads once (CostModel.h).
double inputBytes(const Sizes &z) { return tokenInputBytes(z.layer); }
double outputBytes(const Sizes &z) { return tokenOutputBytes(z.layer); }

/// Global loads of one chunk state as chunk_output reads it: a load per
/// run of 4 floats of S (per float where e is not a multiple of 4) and one
/// per Z.
double stateLoads(const Sizes &z) {
  double perLoad = std::fmod(z.e, 4) == 0 ? 4 : 1;
  return z.D * (z.e / perLoad + 1);
}

/// One chunk state as the tile chunk_output reads it (bf16 hi + lo halves,
/// ChunkOutputTile::stateSlotElements).
double stateHalvesBytes(const Sizes &z) {
  return 2 * double(ChunkOutputTile::stateSlotElements(rows(z.D), cols(z.e)));
}

/// attention as a tile kernel (sympow/Support/AttentionTile.h, 16-bit):
/// programs of 64 query rows (one warpgroup) walking
/// back from the diagonal over steps of 64 keys; program i takes i + 1
/// steps. Per step the keys and values come in 16-byte copies, the gates
/// by a scan of shuffles, and the scores and P [V | 1] are warpgroup MMAs.
/// Memory, shared and tensor figures follow the code. Per thread and step,
/// fp32 is 159 + a + 32 (a thread's [num | den] accumulators a, rescaled;
/// each score's 2^sigma_j) and int 14 + its 16-byte copies; the rest of a
/// program 2 a fp32 and 260 + 7.5 a int: fitted on the emulator's heaviest
/// program (T = 1024 against 2048 at d = e = 64, bf16, data gate; 512
/// against 1024 at d = e = 32 without gates and at d = 32, e = 128, f16,
/// head gate), with gates assumed (the sizes do not say). Rotating layers
/// copy q and k as hi + lo halves (AttentionTile::halvesColumns) and split
/// the scores into three products. Where e = 256 each of e / 64 programs
/// per row block takes 64 value columns and computes the scores again.
KernelEstimate tileAttention(const Sizes &z, const AttentionTile &tile) {
  const double R = AttentionTile::kRows, K = AttentionTile::kKeys,
               P = AttentionTile::kThreads;
  double n = std::ceil(z.T / R);
  // A program's value columns (a block of them where e = 256).
  double blocks = double(tile.columnBlocks),
         EV = double(tile.programColumns(cols(z.e)));
  double DK = double(AttentionTile::keyColumns(int64_t(z.d))),
         NV = double(AttentionTile::valueColumns(int64_t(EV)));
  // Columns of a copied q or k row; score products per 16 of d.
  double QK = double(tile.sourceColumns(int64_t(z.d)));
  double products = tile.splitScores ? 3 : 1;
  double acc = R * NV / P, runs = K * (QK + EV) / 8;
  OpCounts step;
  step.globalLoads = u(runs + K / 2);
  step.globalLoadBytes = u(K * (QK + EV) * z.s + 4 * K);
  step.globalLoadSectors = u(K * (QK + EV) * z.s / 32 + 8);
  step.sharedStoreBytes = u(K * (QK + EV) * z.s + 8 * K);
  step.sharedStores = u(K);
  step.sharedStoreWavefronts = u(step.sharedStoreBytes / 128);
  // The MMAs' operands, and each score's 2^sigma_j by its column.
  step.sharedLoads = u(17 * P);
  step.sharedLoadBytes = u(K * (products * DK + NV) * 2 + 17 * 4 * P);
  step.sharedLoadWavefronts = u(step.sharedLoadBytes / 128);
  step.fp32Alu = u(P * (159 + acc + 32));
  step.sfu = u(12.5 * P);
  step.intAlu = u(14 * P + runs);
  step.shuffles = u(20);
  step.barriers = 2;
  step.wgmma = u(products * DK / 16 + K / 16);
  step.wgmmaMultiplyAdds = u(products * R * K * DK + R * NV * K);
  OpCounts program;
  program.globalLoads = u(R * QK / 8 + R / 2);
  program.globalLoadBytes = u(R * QK * z.s + 4 * R);
  program.globalStores = u(R * EV / 2);
  program.globalStoreBytes = u(R * EV * z.s);
  program.fp32Alu = u(P * 2 * acc);
  program.fp32Fma = u(32 * P);
  program.sfu = u(60 * P);
  program.intAlu = u(P * (260 + 7.5 * acc));
  program.sharedLoads = u(8 * P);
  program.sharedLoadBytes = u(96 * P);
  program.ldmatrix = u(QK / 16 * 4);
  program.barriers = 8;
  double steps = z.B * z.Hq * blocks * n * (n + 1) / 2,
         programs = z.B * z.Hq * blocks * n;
  OpCounts total = times(step, steps), heaviest = times(step, n);
  total += times(program, programs);
  heaviest += program;
  // Rotating layers read the halves instead of q and k.
  double halves = z.B * z.T * (z.Hq + z.H) * QK * z.s;
  double in = tile.splitScores
                  ? inputBytes(z) - z.B * z.T * (z.Hq + z.H) * z.d * z.s -
                        (z.learned ? 4 * z.B * z.T * z.H : 0) + halves
                  : inputBytes(z);
  return {"attention",
          launch({g(n), g(z.Hq * blocks), g(z.B)}, g(P), total, heaviest, in,
                 outputBytes(z)),
          {int(registerCap(tile.minProgramsPerSM(int64_t(z.d), int64_t(z.e)),
                           int64_t(P))),
           int(tile.sharedBytes(int64_t(z.d), int64_t(z.e)))}};
}

/// attention in f32 FMA (AttentionFma.cpp: f32 layers, the relative
/// schedules, what the tile kernel does not take): blocks of 64 queries
/// walking back over key tiles of 64; block i visits i + 1 tiles.
KernelEstimate attention(const Sizes &z) {
  const double bt = 64, tile = bt * bt;
  double n = std::ceil(z.T / bt);
  double threads = 256;
  OpCounts perTile;
  perTile.globalLoads = u(bt * (z.d + z.e) * z.s / 16 + 96);
  perTile.globalLoadBytes = u(bt * (z.d + z.e) * z.s + 768);
  perTile.sharedLoadBytes = u(tile * 22.3 * (z.d + z.e) / 128);
  perTile.sharedStoreBytes = u(tile * 4.25 * (z.d + z.e) / 128);
  // Per score: the log weight in base 2 (one fma on the hardware's log2),
  // the mask, the row maximum, the weight 2^(lw - m).
  perTile.fp32Alu = u(tile * 10);
  perTile.fp32Fma = u(tile * 1.06);
  perTile.sfu = u(tile * 2.07);
  perTile.intAlu = u(tile * 8.3);
  if (z.learned) {
    // Each key tile is rotated on its way in: element loads, angles in f64,
    // sin/cos, the hi + lo split.
    perTile.globalLoads += u(bt * z.d + 224);
    perTile.fp64 += u(310 * z.d);
    perTile.fp32Alu += u(240 * z.d);
    perTile.sfu += u(81 * z.d);
    perTile.intAlu += u(625 * z.d);
  }
  perTile.fp32Fma += u(tile * (z.d + z.e));
  double tiles = z.B * z.Hq * n * (n + 1) / 2;
  OpCounts total = times(perTile, tiles);
  OpCounts heaviest = times(perTile, n);
  return {"attention",
          launch({g(n), g(z.Hq), g(z.B)}, g(threads), total, heaviest,
                 inputBytes(z), outputBytes(z)),
          // ptxas' registers: its own choice (110) under the cap of the
          // blocks per SM it is held to (kAttentionFmaBlocksPerSM).
          {int(std::min<int64_t>(
               110, registerCap(kAttentionFmaBlocksPerSM, int64_t(threads)))),
           37376}};
}

/// chunk_counts: one program per (head, sequence) (ChunkCountsSplit), in
/// tiles of threads x 8 tokens, 8 adjacent ones per thread: the thread's
/// sums, a warp scan of f64 shuffles, the warps' totals through workgroup
/// memory (each thread reads all of them), two barriers. Per tile and
/// thread, as the emulator counts them (256 and 512 threads): 33 + 2 W f64
/// operations, 73 + W integer ones (W warps); about 30 integer ones and the
/// c_0 load once per thread.
KernelEstimate chunkCounts(const Sizes &z, bool readsC) {
  constexpr double kThreads = double(ChunkCountsSplit::threads),
                   kWarps = double(ChunkCountsSplit::warps),
                   kTokens = double(ChunkCountsSplit::tokensPerThread);
  double tiles = std::ceil(z.T / (kThreads * kTokens));
  OpCounts one;
  double c0 = readsC ? kThreads : 0; // no c (attention): counts from 0
  one.globalLoads = u(z.T + c0);
  one.globalLoadBytes = u(4 * z.T + 8 * c0);
  one.globalLoadSectors = u(z.T + kWarps); // beta 32 bytes apart
  one.globalStores = u(z.T);
  one.globalStoreBytes = u(8 * z.T);
  one.globalStoreSectors = u(z.T);
  one.sharedStores = u(kWarps * tiles);
  one.sharedStoreBytes = u(8 * kWarps * tiles);
  one.sharedStoreWavefronts = u(kWarps * tiles);
  one.sharedLoads = u(kWarps * kThreads * tiles);
  one.sharedLoadBytes = u(8 * kWarps * kThreads * tiles);
  one.sharedLoadWavefronts = u(2 * kWarps * kWarps * tiles);
  one.shuffles = u(10 * kWarps * tiles);
  one.fp64 = u((33 + 2 * kWarps) * kThreads * tiles);
  one.intAlu = u((73 + kWarps) * kThreads * tiles + 30 * kThreads);
  one.barriers = u(2 * tiles);
  KernelEstimate k{"chunk_counts",
                   launch({1, g(z.H), g(z.B)}, uint32_t(kThreads),
                          times(one, z.B * z.H), one, z.B * z.H * z.T * 4,
                          z.B * z.H * z.T * 8),
                   // ptxas' registers (sm_90a); the warps' f64 totals.
                   {98, int(8 * kWarps)}};
  return k;
}

/// chunk_states (the scalar kernel of f32 layers): one block per (chunk,
/// head): phi(K_c)^T [V_c 1] into its own state, written to the workspace.
KernelEstimate chunkStates(const Sizes &z, double C) {
  double N = std::ceil(z.T / C), E1 = z.e + 1, rowsTokens = z.D * C;
  OpCounts b;
  b.globalLoads = u(C * (z.d + z.e) + 9 * C);
  b.globalLoadBytes = u(C * (z.d + z.e) * z.s + 36 * C);
  b.globalStores = u(z.D * E1 + 1);
  b.globalStoreBytes = u(4 * (z.D * E1 + 1));
  b.sharedLoadBytes = u(40 * rowsTokens);
  b.sharedStoreBytes = u(4.2 * rowsTokens);
  b.fp32Alu = u(7.35 * rowsTokens);
  b.sfu = u(0.25 * rowsTokens);
  b.intAlu = u(30.5 * rowsTokens);
  b.fp32Fma = u(z.D * E1 * C);
  double blocks = N * z.H * z.B;
  KernelEstimate k{"chunk_states",
                   launch({g(N), g(z.H), g(z.B)}, 256, times(b, blocks), b,
                          z.B * z.T * z.H * ((z.d + z.e) * z.s + 4),
                          blocks * 4 * (z.D * E1 + 1)),
                   {int(registerCap(kF32ChunkBlocksPerSM, 256)), 37120}};
  return k;
}

/// chunk_scan (a tile kernel): programs of consecutive elements of the
/// flattened [S | Z] state per (head, sequence) (ChunkScanSplit.h, one
/// per thread), each walking the N chunk states in order, every state
/// element a serial chain through the chunks.
KernelEstimate chunkScan(const Sizes &z, double C) {
  double N = std::ceil(z.T / C), elements = z.D * (z.e + 1);
  ChunkScanSplit split = chunkScanSplit(rows(z.D), cols(z.e));
  double programs = double(split.programs), threads = double(split.threads);
  OpCounts b;
  b.globalLoads = u((2 * N + 1) * elements);
  b.globalLoadBytes = u(4 * b.globalLoads);
  b.globalStores = u((N + 1) * elements);
  b.globalStoreBytes = u(4 * b.globalStores);
  b.fp32Fma = u(N * elements);
  b.sfu = u(N * elements);
  b.intAlu = u(7.33 * b.globalLoads);
  KernelEstimate k{"chunk_scan",
                   launch({g(programs), g(z.H), g(z.B)}, uint32_t(threads),
                          times(b, z.B * z.H), times(b, threads / elements),
                          z.B * z.H * (N + 1) * elements * 4,
                          z.B * z.H * (N + 1) * elements * 4),
                   {28, 0}};
  return k;
}

/// What both of chunk_state_pass's schedules derive from its split: the
/// program's rows R, a step's tokens K, its consumer threads,
/// a consumer thread's elements RK, chunks N and steps, the producer's runs
/// (key runs cover a pair of tokens: two loads, one store of both
/// interleaved; value runs one token) and its first warp's weights (two
/// tokens a lane: a reversed scan and a sum of the step's gates, log2(K /
/// 2) rounds of shuffles each; the weights' and both decays' exps; stores
/// of the f32 pairs, where weightHalves of the bf16 hi and lo pairs, and
/// one of both decays).
struct StatePassShape {
  double R, K, PC, NV, RK, p, splitV, N, steps, rot, E1, keyRuns, valueRuns,
      runs, halves, weightStores, weightBytes, weightSfu, weightShuffles;
  StatePassShape(const Sizes &z, double C, const ChunkStatePass &split,
                 bool f16)
      : R(double(split.rowsPerProgram)), K(double(split.tokensPerStep)),
        PC(double(ChunkStatePass::consumerThreads)),
        NV(double(split.programColumns(cols(z.e)))), RK(R * K / PC), p(z.p),
        splitV(f16 ? 1 : 0), N(std::ceil(z.T / C)), steps(N * std::ceil(C / K)),
        rot(z.rotates ? 1 : 0), E1(NV + 1), halves(split.weightHalves ? 1 : 0) {
    keyRuns = K / 2 * z.d / double(split.keyRun(cols(z.d), z.rotates));
    valueRuns = K * NV / double(split.valueRun(cols(z.e)));
    runs = 2 * keyRuns + valueRuns;
    weightStores = K / 2 * (1 + 2 * halves) + 1;
    weightBytes = 4 * K + 4 * halves * K + 8;
    weightSfu = 4 * 32;
    weightShuffles = 2 * std::log2(K / 2);
  }
  /// A step's global loads: the runs and the gates (rotating schedules
  /// read the keys chunk_keys rotated, f32).
  OpCounts stepLoads(const Sizes &z) const {
    OpCounts step;
    step.globalLoads = u(runs + K);
    step.globalLoadBytes = u(K * z.d * (rot ? 4 : z.s) + K * NV * z.s + 4 * K);
    return step;
  }
};

/// chunk_state_pass's launch of `program` (its heaviest program) over the
/// grid, with its distinct bytes: the tokens' inputs and the state read,
/// the chunk states and the state written; `registers` ptxas' (its cap).
static KernelEstimate statePassLaunch(const Sizes &z, double C,
                                      const ChunkStatePass &split,
                                      const OpCounts &program, bool f16,
                                      int registers) {
  double X = double(split.gridPrograms()), N = std::ceil(z.T / C);
  double rot = z.rotates ? 1 : 0;
  double stateBytes = z.B * z.H * 4 * z.D * (z.e + 1);
  double chunkBytes = z.B * z.H * stateHalvesBytes(z);
  return {"chunk_state_pass",
          launch({g(X), g(z.H), g(z.B)}, g(double(split.threads())),
                 times(program, X * z.H * z.B), program,
                 z.B * z.T * z.H *
                         (z.d * (rot ? 4 : z.s) + z.e * z.s + 4 + 8 * rot) +
                     stateBytes,
                 N * chunkBytes + stateBytes),
          {registers, split.sharedBytes(cols(z.d), cols(z.e), f16, z.rotates)}};
}

/// chunk_state_pass with a producer warpgroup of its own (a tile kernel,
/// 16-bit inputs; ChunkStatePass.h): programs of R state rows per (head,
/// sequence), each walking the tokens in steps of K inside a chunk. The
/// producer loads a step's keys (rotated), values and gates two steps ahead
/// and stages them in runs, and its first warp the weights ready to use (a
/// scan of the step's gates, two tokens a lane; bf16 hi + lo beside the f32
/// where the consumers multiply packed bf16); the two consumer warpgroups
/// each take half a step's tokens, build their Phi^T elements as the A
/// fragments of register-A warpgroup MMAs (p key loads a pair of tokens,
/// the weights as staged) against the staged [V | 1] (hi + lo for f16: a
/// third product), each into its own accumulators of all R rows of [S | Z
/// | 0 ...] (NO = e + 8 columns). Where a chunk ends warpgroup 1 hands its
/// part over through workgroup memory and warpgroup 0 writes the chunk
/// state; the final state is summed by warpgroup 1. Memory, tensor,
/// barrier and workgroup wavefront figures follow the code; fp32, int and
/// the per-program and per-chunk figures were fitted on the emulator's
/// heaviest program at p = 2, d = e = 64 (bf16, f16, learned rotation),
/// T = 1024 and 2048, chunks of 256 and 512 (steps, chunks and the program
/// apart).
static KernelEstimate chunkStatePassInRegisters(const Sizes &z, double C,
                                                const ChunkStatePass &split,
                                                bool f16) {
  StatePassShape sh(z, C, split, f16);
  double P = double(split.threads()), R = sh.R, K = sh.K, PC = sh.PC,
         NV = sh.NV, RK = sh.RK, p = sh.p, splitV = sh.splitV, N = sh.N,
         steps = sh.steps, rot = sh.rot, E1 = sh.E1, keyRuns = sh.keyRuns,
         valueRuns = sh.valueRuns, runs = sh.runs, halves = sh.halves;
  double NO = double(split.valueColumns(cols(z.e)));
  bool bf16Keys = ChunkStatePass::bf16Keys(f16, z.rotates);
  double keyPairBytes = bf16Keys ? 4 : 8;
  // (Step i fetches step i + 2: the loop's last two fetch masked tokens.)
  OpCounts step = sh.stepLoads(z);
  // Per pair of tokens of a consumer thread p key words; per 16 tokens two
  // weight pairs (each shared by both row halves), as f32 or as bf16 hi
  // and lo pairs, 8 bytes each; the step's decay.
  step.sharedLoads = u(PC * RK / 2 * p + PC * RK / 4 + PC);
  // Per 16 tokens one MMA per product, its B (the values) read from
  // workgroup memory as the emulator counts operands (Block.cpp).
  double products = 2 + splitV, kSteps = K / 16;
  step.wgmma = u(kSteps * products);
  step.wgmmaMultiplyAdds = u(kSteps * 64 * 16 * products * NO);
  step.sharedLoadBytes = u(PC * RK / 2 * p * keyPairBytes + 8 * PC * RK / 4 +
                           4 * PC + kSteps * 2 * 16 * products * NO);
  // Every load a warp's contiguous words, or broadcast words whose phases
  // (16 lanes of 8 bytes) take as many wavefronts as their bytes would.
  step.sharedLoadWavefronts = u(step.sharedLoadBytes / 128);
  // The keys' runs, the values' (hi and lo for f16), the weights.
  double keyBytes = keyPairBytes / 2 * K * z.d,
         valueBytes = 2 * (1 + splitV) * K * NV;
  // (Copied values, ChunkStatePass::copiedValues, are no stores of the
  // producer's: the emulator counts their bytes, not their instructions.)
  double copied = split.copiedValues ? 1 : 0;
  double stagedStores = keyRuns + (1 - copied) * (1 + splitV) * valueRuns +
                        sh.weightStores,
         stagedBytes = keyBytes + valueBytes + sh.weightBytes;
  step.sharedStores = u(stagedStores);
  step.sharedStoreBytes = u(stagedBytes);
  // Every store a warp's contiguous runs without conflicts (the key rows
  // shifted: keyRowShift): its bytes' wavefronts; each weight store a
  // warp's f32 pairs, its hi and its lo pairs (each a pair's 8 bytes
  // apart), one decay pair.
  double stagedWavefronts = (keyBytes + valueBytes) / 128 +
                            std::ceil(8 * K / 2 / 128) +
                            2 * halves * std::ceil(8 * K / 2 / 128) + 1;
  step.sharedStoreWavefronts = u(stagedWavefronts);
  // Per Phi^T element: packed bf16 pairs 2 fma and 2 other f32 (the
  // products, the weights' pairs); f32 products 4.88 + (p - 2) (product,
  // weight and split); per f16 value its split (5.08); the first warp's
  // scan and weights (34 a lane).
  bool packedProducts =
      ChunkStatePass::packedKeyProducts(int64_t(p), f16, z.rotates);
  double perElement = packedProducts ? 2 : 4.88 + (p - 2);
  double weightWarp = 34 * 32;
  step.fp32Alu = u(R * K * perElement + 5.08 * splitV * K * NV + weightWarp);
  // Both warpgroups' accumulators decay every step unless the decay is once
  // a chunk.
  if (!split.chunkDecay)
    step.fp32Alu += u(2 * R * NO);
  if (packedProducts)
    step.fp32Fma = u(2 * R * K);
  // Per thread the step's place, buffers and fragments' offsets (31.1),
  // less the weights' share of it in the producer's other three warps (9
  // a thread, 18 with rotated keys: the emulator at d 32 to 64, bf16, f16
  // and rotated, once dead ops no longer stood in for a branch's live
  // ones); each run's index math and masks (7.35: passes a whole number of
  // rows on take the first pass's row and column plus a constant, 0.67 a
  // run less than 8.02 by the emulator at bf16, f16 and rotated keys); per
  // f16 value its split's bits; bf16 extended by their bits (a shift or an
  // and each): the staged 16-bit keys, more factors' index math.
  double otherWarps = double(split.producerThreads()) - 32;
  step.intAlu = u(31.1 * P - 9 * (1 + rot) * otherWarps + 7.35 * runs +
                  1.09 * splitV * K * NV + R * K * 0.586 * (p - 2) +
                  (packedProducts ? 0.13 * R * K
                   : bf16Keys     ? 1.56 * p * R * K
                   : rot          ? 0
                                  : K * z.d));
  step.sfu = u(sh.weightSfu);
  step.barriers = 1;
  step.shuffles = u(sh.weightShuffles);
  OpCounts program = times(step, steps);
  // Once: step 0 staged and the ones column, the rows' factors, their
  // reciprocals and the initial Z over them, the initial state read and
  // written as chunk 0's halves, the final state's parts handed over and
  // summed (pairs of floats a load) and stored. Per chunk state:
  // warpgroup 1's part handed over (R NO stores) and added (R NO loads),
  // the halves' S and Z pairs (R NO stores of both), the chunk's decay.
  program.globalLoads += u(R * E1);
  program.globalLoadBytes += u(4 * R * E1);
  // Copied values: the loop's last two steps copy the steps past the end
  // (zeros, reading nothing).
  program.globalLoads += u(copied * 2 * valueRuns);
  double onceStores = 2 * K * (1 + splitV) + 3 * R + (N + 1) * R * NO,
         onceStoreBytes = 32 * K * (1 + splitV) + 12 * R + 4 * (N + 1) * R * NO,
         onceLoads = (N + 1) * R * NO + 3 * PC + N * PC,
         onceLoadBytes = 4 * (N + 1) * R * NO + 12 * PC + 4 * N * PC;
  program.sfu += u(4 * PC + sh.weightSfu);
  program.shuffles += u(sh.weightShuffles);
  // (Fitted as above: per chunk state's element, per program, and step 0's
  // staging.)
  program.fp32Alu +=
      u(8 * N * R * NO + 2.55 * R * NO + 5.08 * splitV * K * NV + weightWarp);
  if (split.chunkDecay) {
    // The state before each chunk kept by warpgroup 0 (its first step and
    // before the loop) and read back decayed (multiply, add) by warpgroup
    // 1 at each chunk's end but the last and by warpgroup 0 after the
    // loop.
    onceStores += N * R * NO;
    onceStoreBytes += 4 * N * R * NO;
    onceLoads += N * R * NO;
    onceLoadBytes += 4 * N * R * NO;
    program.fp32Alu += u(2 * N * R * NO);
  }
  program.sharedStores += u(stagedStores + onceStores);
  program.sharedStoreBytes += u(stagedBytes + onceStoreBytes);
  program.sharedLoads += u(onceLoads);
  program.sharedLoadBytes += u(onceLoadBytes);
  // The accumulators' words go one a lane at a column stride of 2: twice
  // their bytes' wavefronts.
  program.sharedStoreWavefronts +=
      u(stagedWavefronts + 2 * onceStoreBytes / 128);
  program.sharedLoadWavefronts += u(2 * onceLoadBytes / 128);
  program.globalStores = u(N * R * NO + R * (NV / 2 + 1));
  program.globalStoreBytes = u(4 * N * R * NO + 4 * R * E1);
  program.intAlu += u(4.42 * N * R * NO + 182656);
  program.barriers += 2;
  // ptxas' registers under the cap of two programs per SM (80 at d = e =
  // 64 on both targets).
  return statePassLaunch(
      z, C, split, program, f16,
      int(registerCap(split.minProgramsPerSM(cols(z.e)), split.threads())));
}

/// chunk_state_pass (a tile kernel, 16-bit inputs): programs of R state
/// rows per (head, sequence) (ChunkStatePass.h), each walking the tokens in
/// steps of K inside a chunk. With a producer warpgroup of its own, above;
/// else the 256 threads in turn, between three barriers a step: they load
/// a step's keys (rotated), values and gates a step ahead, stage them in
/// runs, and the first warp the weights by a scan of the step's gates
/// (shuffles; StatePassShape); build phi of the program's rows in
/// workgroup memory as bf16 hi + lo in pairs of tokens and take native
/// dots of both halves ([S | Z] = decay [S | Z] + Phi^T [V | 1]), two
/// warpgroups side by side; f16 values as hi + lo, with a third dot. The state
/// before every chunk written once. Memory and tensor figures follow the code;
/// fp32, int and the per-program and per-chunk figures were fitted on the
/// emulator's heaviest program, T = 512 against 1024, chunks of 256
/// (learned rotation at d = 64, e = 128, f16 at e = 96): a step's fp32
/// within 1%, int within 5%.
KernelEstimate chunkStatePass(const Sizes &z, double C,
                              const ChunkStatePass &split, bool f16) {
  if (split.specialized)
    return chunkStatePassInRegisters(z, C, split, f16);
  StatePassShape sh(z, C, split, f16);
  double R = sh.R, K = sh.K, PC = sh.PC, NV = sh.NV, RK = sh.RK, p = sh.p,
         splitV = sh.splitV, N = sh.N, steps = sh.steps, rot = sh.rot,
         E1 = sh.E1, keyRuns = sh.keyRuns, valueRuns = sh.valueRuns,
         runs = sh.runs;
  OpCounts step = sh.stepLoads(z);
  // Phi^T in pairs of tokens: p key loads a pair (a dim of both tokens),
  // one weight load a pair; the step's decay, in every consumer thread.
  double pairLoads = PC * RK / 2 * (p + 1);
  // bf16 keys staged as they come (4 bytes a pair), others as f32 (8).
  bool bf16Keys = ChunkStatePass::bf16Keys(f16, z.rotates);
  double keyPairBytes = bf16Keys ? 4 : 8;
  step.sharedLoads = u(pairLoads + PC);
  // Per 16 tokens, warpgroup MMAs of Phi^T's halves with the values (hi
  // and lo for f16), one per warpgroup (side by side, WN of them, each
  // reading all of Phi^T's rows); their operands leave workgroup memory as
  // the emulator counts them (Block.cpp).
  double products = 2 + splitV, kSteps = K / 16,
         WN = double(ChunkStatePass::warpsN);
  step.wgmma = u(kSteps * products * WN);
  step.wgmmaMultiplyAdds = u(kSteps * 64 * 16 * products * NV);
  double operandBytes = kSteps * 2 * 16 * products * (64 * WN + NV);
  step.sharedLoadBytes =
      u(PC * RK / 2 * (p * keyPairBytes + 8) + 4 * PC + operandBytes);
  // The keys' runs, the values' (hi and lo for f16), the weights and the
  // decays, Phi^T's halves.
  step.sharedStores =
      u(keyRuns + (1 + splitV) * valueRuns + sh.weightStores + R * K);
  step.sharedStoreBytes =
      u(keyPairBytes / 2 * K * z.d + 2 * (1 + splitV) * K * NV +
        sh.weightBytes + 4 * R * K);
  // Per Phi^T element (its product, weight and split, and its add to Z's
  // partial sums), per staged value converted (to bf16; f16 values split),
  // the accumulators' decay per step, and per consumer thread (Z's partial
  // sums decayed) and per producer thread.
  double accumulators = R * NV;
  step.fp32Alu = u(5 * PC + K * NV + R * K * (5.79 + (p - 2)) +
                   5.09 * splitV * K * NV + accumulators);
  // bf16 extended by their bits (a shift or an and each): the hi half of
  // each Phi^T element, the staged 16-bit keys; each run's index math and
  // masks; per thread the step's place and buffers (both roles: a thread
  // that is both pays both).
  step.intAlu = u(36.2 * PC + 3.14 * runs + R * K * (1 + 0.586 * (p - 2)) +
                  (bf16Keys ? 0.938 * p * R * K
                   : rot    ? 0
                            : K * z.d));
  step.sfu = u(sh.weightSfu);
  step.barriers = 3;
  step.shuffles = u(sh.weightShuffles);
  // One chunk state's guarded stores: S's column pairs as 8-byte stores
  // where e is even, Z's column alone.
  bool paired = std::fmod(z.e, 2) == 0;
  // Ahead: both loops run steps + 1 times (the last past the end), and a
  // barrier before them.
  OpCounts program = times(step, steps);
  // The step past the end loads nothing (its tokens are masked), and the
  // MMAs run for steps 0 .. steps - 1.
  program.globalLoads = u(steps * double(step.globalLoads) + R * E1);
  program.globalLoadBytes =
      u(steps * double(step.globalLoadBytes) + 4 * R * E1);
  program.wgmma = u(steps * double(step.wgmma));
  program.wgmmaMultiplyAdds = u(steps * double(step.wgmmaMultiplyAdds));
  program.shuffles += u((2 * N + 5.5) * PC / 32);
  double S = paired ? z.e / 2 : z.e;
  // The accumulators hold the state divided by phi's row factors: the
  // initial state divided (divf, an sfu op), the final one multiplied (the
  // chunk states' halves weigh theirs below); the initial Z divided.
  program.sfu += u(accumulators + 5 * PC);
  program.fp32Alu += u(20 * PC + splitV * accumulators);
  program.intAlu += u(95850 + 209 * (z.d + z.e) + 39950 * (p - 2));
  // The chunk states as the tile chunk_output's halves: per half S's
  // columns, Z's and the zero columns up to NO; the weight and the split
  // per accumulator element, and per thread Z's scan over a row's slots,
  // weight and split (the emulator at p = 2, d = e = 64, 32 and 16/32,
  // bf16, f16 and learned rotation, T = 1024 against 512, chunks of 256).
  double NO = double(ChunkOutputTile::valueColumns(cols(z.e)));
  double elements = N * accumulators;
  program.globalStores = u(R * (S + 1) + 2 * N * R * (S + (NO - z.e) / 2));
  program.globalStoreBytes = u(4 * R * E1 + 4 * N * R * NO);
  program.fp32Alu += u(7 * elements + 14 * PC * N);
  program.intAlu += u(elements + 20 * PC * N);
  program.sharedLoads += u(2 * PC * N);
  program.sharedLoadBytes += u(8 * PC * N);
  // ptxas' registers under the cap of two programs per SM, or its own
  // choice with one (147 at 128 on sm_90a).
  return statePassLaunch(z, C, split, program, f16,
                         split.minProgramsPerSM(cols(z.e)) == 2
                             ? int(registerCap(2, split.threads()))
                             : 159);
}

/// chunk_keys and rotate_qk (tile kernels, rotating schedules;
/// RotatedOperands.cpp): programs of 16 tokens per (head, sequence), each
/// element rotated once (its pair partner read per element, the count once
/// per run). chunk_keys writes the keys as f32; rotate_qk writes q and k as
/// hi + lo halves (AttentionTile::halvesColumns, a store per half and run).
/// Figures per element from the emulator at d = 32, 64 (chunk_keys).
KernelEstimate rotation(const Sizes &z, bool halves) {
  const double kTokens = double(ChunkKeysSplit::tokensPerProgram),
               P = double(ChunkKeysSplit::threads);
  double E = kTokens * z.d;
  double L = double(ChunkKeysSplit::runLength(cols(z.d)));
  double heads = halves ? z.Hq + z.H : z.H;
  double outBytes =
      halves ? kTokens * double(AttentionTile::halvesColumns(cols(z.d))) * z.s
             : 4 * E;
  OpCounts b;
  b.globalLoads = u(E / L + E + E / L);
  b.globalLoadBytes = u(2 * E * z.s + 8 * E / L);
  b.globalStores = u((halves ? 2 : 1) * E / L);
  b.globalStoreBytes = u(outBytes);
  b.intAlu = u(30 * E);
  b.fp32Alu = u((halves ? 9 : 6) * E);
  b.fp64 = u(9 * E);
  b.sfu = u(2 * E);
  double X = std::ceil(z.T / kTokens), blocks = X * heads * z.B;
  return {halves ? "rotate_qk" : "chunk_keys",
          launch({g(X), g(heads), g(z.B)}, g(P), times(b, blocks), b,
                 z.B * z.T * (heads * z.d * z.s + 8 * z.H),
                 z.B * z.T * heads * outBytes / kTokens),
          // ptxas' registers on sm_90a (d = 64).
          {halves ? 66 : 60, 0}};
}

/// chunk_output (the scalar kernel of f32 layers): one block per (chunk,
/// query head): the causal block and phi(Q_c) against the chunk's state,
/// read once: a row's S in 16-byte loads (when e is a multiple of 4), its Z
/// in one.
KernelEstimate chunkOutput(const Sizes &z, double C) {
  double N = std::ceil(z.T / C), E1 = z.e + 1, rowsTokens = z.D * C;
  OpCounts b;
  b.globalLoads = u(stateLoads(z) + C * (2 * z.d + z.e) * 1.05);
  b.globalLoadBytes = u(4 * z.D * E1 + C * (2 * z.d + z.e) * z.s * 1.05);
  b.globalStores = u(C * z.e);
  b.globalStoreBytes = u(C * z.e * z.s);
  b.sharedLoadBytes = u(40 * rowsTokens);
  b.sharedStoreBytes = u(8.9 * rowsTokens);
  // Its bank conflicts: 2.1x the wavefronts of its load bytes, 3.9x of its
  // store bytes (the emulator's count at 1f2d40d; the H100's profiler saw
  // 3.3-way load conflicts).
  b.sharedLoadWavefronts = u(0.659 * rowsTokens);
  b.sharedStoreWavefronts = u(0.273 * rowsTokens);
  b.fp32Alu = u(13.8 * rowsTokens);
  b.sfu = u(0.41 * rowsTokens);
  b.intAlu = u(35.7 * rowsTokens);
  b.fp32Fma = u(z.D * E1 * C + C * C * (z.d + z.e) / 2);
  double blocks = N * z.Hq * z.B;
  KernelEstimate k{"chunk_output",
                   launch({g(N), g(z.Hq), g(z.B)}, 256, times(b, blocks), b,
                          inputBytes(z) + N * z.H * z.B * 4 * z.D * E1,
                          outputBytes(z)),
                   {int(registerCap(kF32ChunkOutputBlocksPerSM, 256)), 47104}};
  return k;
}

/// The registers ptxas gives the tile chunk_output (at the cap where it has
/// one): the warpgroup path with rows wider than 72 columns holds 68
/// accumulator floats of each kind (228 on sm_90a at d = e = 128 in
/// programs of 64 rows, 250 in programs of two warpgroups, whose key steps
/// are warpgroup MMAs).
int64_t chunkOutputRegisters(const ChunkOutputTile &split, int64_t e) {
  if (split.warpgroupState(e) &&
      ChunkOutputTile::valueColumns(split.programColumns(e)) > 72)
    return split.pairedWarpgroups() ? 250 : 228;
  return split.factorsState ? 160 : 153;
}

// chunk_output's factored state part with bulk copies (below), integer
// operations: per a and query row, per step and thread, per bulk copy and
// lane of the elected warp (its loop's two adds and its share of the
// step's place, counted as its warp's). Per a and row 121.1 while q's
// columns below a were masked in the dots' A (a compare and a select per
// fragment element); 99.5 since those rows of the state buffer are zeros;
// 52.5 (and 3.92 a copy, 2 before) since a step's buffer, skip and zero
// rows are computed in the branches that use them, the kernels' integer
// constants are folded as they are built and programs of two warpgroups
// take one step an a (2026-12-08: refitted on the emulator at d = 32 and
// 64, e = 32 and 64, T = 1024, chunks of 256, where each a is one step, so
// the per-step figure, from before, is not refitted; integer operations
// within 7% at those points, 15 to 22% under at d = 16).
constexpr double kIntPerARow = 52.5, kIntPerStep = 2.665,
                 kIntPerBulkCopy = 3.92;

/// chunk_output as a tile kernel (ChunkOutputTile.h): program (query tile,
/// query head, sequence) multiplies phi(Q) with the chunk's state in steps
/// of F rows (or, factored at p = 2, one a at a time: the state rows from
/// a's 16-row block on, and the rows' q_a), then walks the chunk's keys up
/// to its diagonal in steps of K. The state rows are copied from
/// chunk_state_pass's halves in 16-byte runs. Tensor-core and ldmatrix
/// counts, the state's global loads and stores of runs follow the kernel's
/// loops exactly; the other figures are per unit of work (a copied run, a
/// phi(Q) step's R F (p + 1) elements, a key step's K (DK + NV) + R K) from
/// the emulator at p = 2, d = e = 64, bf16, data gate, chunk 256, T = 1024
/// (the heaviest and the average program solved for the per-step and the
/// per-program figures); a key step's weights per score by their kind (the
/// steps before the first row and those from it) from chunks of 128, 256
/// and 512 at T = 1024, within 2.5% of those counts.
KernelEstimate chunkOutputTile(const Sizes &z, int64_t chunk,
                               const ChunkOutputTile &split) {
  double R = double(split.rowsPerProgram), K = double(split.keysPerStep),
         F = double(split.stateRowsPerStep), P = double(split.threads());
  // A program's value columns (a block of them where e = 192, 256).
  double blocks = double(split.columnBlocks),
         EV = double(split.programColumns(cols(z.e)));
  double W = R / 16, DK = double(ChunkOutputTile::keyColumns(cols(z.d))),
         NV = double(ChunkOutputTile::valueColumns(int64_t(EV)));
  double qk = split.splitScores ? 3 : 1, halves = split.splitScores ? 2 : 1,
         pv = split.splitValues ? 2 : 1, rot = z.rotates ? 1 : 0;
  // The factored part is counted whole (one step per program).
  double stateSteps = split.factorsState ? 1 : std::ceil(z.D / F);
  double keyUnits = K * (DK + NV) + R * K;
  OpCounts state, key, base;
  if (split.factorsState) {
    // Per program: each a's state rows from its 16-row block a0 to DK, in
    // steps of F rows, then the rows' q_a; the a of one block alike.
    double kSteps = 0, steps = 0, runs = 0, bulkRows = 0, zeroRows = 0;
    for (double a0 = 0; a0 < z.d; a0 += 16) {
      double as = std::min(16.0, z.d - a0), k = DK - a0;
      double stepsPerA = std::ceil(k / F);
      kSteps += as * k / 16;
      steps += as * stepsPerA;
      // Bulk copies bring each step's rows up to d, less the j = a - a0
      // rows below a in a's first step, which are zeros instead: the rows
      // its buffer's last fill left (one an a where a takes two steps,
      // two where it takes one, all j where more).
      for (double r = a0; r < z.d; r += F)
        bulkRows += as * std::min(F, z.d - r);
      bulkRows -= as * (as - 1) / 2;
      zeroRows += stepsPerA == 2   ? as - 1
                  : stepsPerA == 1 ? std::max(0.0, 2 * as - 3)
                                   : as * (as - 1) / 2;
      // One buffer: each pass of P runs loads in every thread (rows past
      // the state read its last one), stores the runs inside the step.
      for (double r = 0; r < k; r += F)
        runs += as * 2 * std::ceil(std::min(F, k - r) * NV / (8 * P)) * P;
    }
    double products = split.splitScores ? 3 : 2;
    if (split.warpgroupState(cols(z.e))) {
      // One warpgroup MMA (64 x NV x 16) per product, 16 rows and
      // warpgroup, its B read once for the 4 warps; q's fragments by
      // ldmatrix.
      state.wgmma = u(kSteps * products * R / 64);
      state.wgmmaMultiplyAdds = u(kSteps * products * R * 16 * NV);
      state.ldmatrix = u(W * kSteps * halves);
    } else {
      state.mma[int(MmaShape::M16N8K16F16)] = u(W * kSteps * NV / 8 * products);
      state.ldmatrix = u(W * kSteps * (halves + 2 * NV / 8));
    }
    state.fp32Fma = u(z.d * R * NV);
    if (split.stateBuffers == 2) {
      // Two buffers (one barrier a step): cp.async copies in 16-byte runs,
      // the step's F rows issued, those outside a's rows zero-filled (not
      // read: the live rows, b >= a, are the state's D). Each copy's place
      // in a buffer is computed once per program and a step's buffer is a
      // constant, so what is left of the copies' index math weighs little
      // next to each a's work per query row (its factors q_a and their
      // fma) and q's rotation.
      double copied = steps * 2 * F * NV / 8, aRows = z.d * R;
      state.globalLoads = u(copied);
      state.globalLoadBytes = u(2 * 2 * z.D * NV);
      state.barriers = u(steps + 1);
      if (split.warpgroupState(cols(z.e))) {
        // With the warpgroup MMA (64 rows, B read once a warpgroup): fitted
        // to the emulator over ten layers (d 16 to 128, e 32 to 128, bf16
        // and f16, rotated or not, chunks 128 to 256; the key step's split
        // operands below with them): per a and query row, and each step's
        // scalar index math per thread.
        // The row factors q_a are read from q as staged: no stores.
        state.fp32Alu = u((16.98 + 6.58 * rot) * aRows);
        state.sharedLoads = u(3.73 * aRows);
        state.sharedLoadBytes = u(14.82 * copied + 34.05 * aRows);
        if (split.bulkState(cols(z.e))) {
          // A step's rows by bulk copies, one per 8-column piece and half
          // from one thread (unrotated bf16: rot = 0): their loops' index
          // math counts 32 times (a warp's instructions). The integer work
          // refitted over six such layers (d 16 to 64, e 32 and 64, T =
          // 1024, chunks of 256): per a and query row, each step's scalar
          // work per thread.
          double bulk = steps * 2 * NV / 8, bulkBytes = bulkRows * NV * 2 * 2;
          // The zeros: a 16-byte store per row, 8-column piece and half.
          double zeroStores = zeroRows * NV / 8 * 2;
          state.globalLoads = 0;
          state.bulkCopies = u(bulk);
          state.globalLoadBytes = u(bulkBytes);
          state.intAlu = u(kIntPerARow * aRows + kIntPerStep * steps * P +
                           kIntPerBulkCopy * 32 * bulk);
          state.sharedStores += u(zeroStores);
          state.sharedStoreBytes =
              u(bulkBytes + 16 * zeroStores + 1.31 * aRows);
        } else {
          // The copies 16-byte runs from every thread.
          state.intAlu = u((126.4 + 34.22 * rot) * aRows + 16.88 * steps * P);
          state.sharedStoreBytes = u(15.95 * copied + 1.31 * aRows);
          state.globalLoads += u(1.70 * rot * aRows);
        }
      } else {
        // Without it (32 or 16 rows; rows past 136 columns), per copy with
        // the rows' q_a and q's staging folded in: fitted at p = 2, d = e =
        // 64, bf16, chunk 96, T = 960 (the emulator counts each thread's
        // share of the step's scalar index math, which weighs more with 64
        // threads).
        state.fp32Alu = u(0.442 * copied);
        state.intAlu = u(9.72 * copied);
        state.sharedLoads = u(0.14 * copied);
        state.sharedLoadBytes = u(29.36 * copied);
        state.sharedStores = u(0.33 * aRows);
        state.sharedStoreBytes = u(16.14 * copied);
      }
    } else {
      // One buffer (two barriers a step). Per run, with the rows' q_a and
      // q's staging folded in.
      state.fp32Alu = u(1.031 * runs);
      state.intAlu = u(25.2 * runs);
      state.sharedLoads = u(0.369 * runs);
      state.sharedLoadBytes = u(57.9 * runs);
      state.sharedStores = u(0.893 * runs);
      state.sharedStoreBytes = u(13.2 * runs);
      state.globalLoads = u(runs);
      state.globalLoadBytes = u(16 * runs);
      state.barriers = u(2 * steps + 1);
    }
  } else {
    // The state rows come from chunk_state_pass's halves (hi, lo) in
    // 16-byte runs: each pass of P runs loads in every thread (rows past
    // the state read its last one), stores the runs inside the tile.
    double runs = 2 * std::ceil(F * NV / (8 * P)) * P, stored = 2 * F * NV / 8;
    state.mma[int(MmaShape::M16N8K16F16)] = u(W * F / 16 * NV / 8 * 3);
    state.ldmatrix = u(W * F / 16 * (2 + 2 * NV / 8));
    // phi(Q)'s build per unit (R F (p + 1)) as fitted before the halves;
    // the copy per run.
    state.fp32Alu = u(2.73 * R * F * (z.p + 1) + 1.022 * runs);
    state.intAlu = u(5.56 * R * F * (z.p + 1) + 25.2 * runs);
    state.sharedLoads = u(0.382 * R * F * (z.p + 1));
    state.sharedLoadBytes = u(4.96 * R * F * (z.p + 1));
    state.sharedStores = u(0.436 * R * F * (z.p + 1) + stored);
    state.sharedStoreBytes = u(1.63 * R * F * (z.p + 1) + 16 * stored);
    if (split.splitScores) {
      // Each of an element's p factors also reads q's lo half, converts it
      // and adds it (a bf16 each; the hi half counted per unit above).
      double factors = R * F * z.p;
      state.fp32Alu += u(2 * factors);
      state.sharedLoads += u(0.382 * factors);
      state.sharedLoadBytes += u(2 * factors);
    }
    state.barriers = 2;
    state.globalLoads = u(runs);
    state.globalLoadBytes = u(16 * runs);
  }
  // Steps before the program's first row weigh a score with products
  // (q.k)^p 2^sigma_j 2^(rowPart_i - m): the square, then (q.k)^2 to the
  // p/2 by squarings (Emitter::power: floor(log2 n) squarings and
  // popcount(n) - 1 products), its row maximum, two weights, the
  // conversion; a log and an exp per row.
  double powerProducts = -1;
  for (int64_t n = int64_t(z.p) / 2; n > 0; n /= 2)
    powerProducts += (n > 1) + n % 2;
  // Steps from the first row on mask their scores (per score the key's
  // index, two compares, their and, the select) and take log weights: a
  // log, an fma, an exp per score.
  OpCounts diagonal;
  diagonal.intAlu = u(5 * R * K);
  diagonal.fp32Alu = u(6 * R * K);
  diagonal.fp32Fma = u(R * K);
  diagonal.sfu = u(2 * R * K);
  // The key steps' own work, the steps before the first row's weighing, a
  // skipped step's share and [V | 1]'s ones column, by kind of step.
  OpCounts before, skipped, valueTail;
  double skipRows = 16;
  if (split.warpgroupKeys) {
    // Warpgroup key steps (ChunkOutputTile::warpgroupKeys: programs of two
    // warpgroups, rotated bf16 ones of one), as the attention kernel's: a
    // step's keys and values in 16-byte runs, its gates by a scan in the
    // first warp, q's fragments by ldmatrix, the scores and P [V | 1]
    // warpgroup MMAs. Per thread and step (the scores' elementwise work by
    // kind below, the masked steps' `diagonal` above): fitted on the
    // emulator's heaviest programs of chunks of 512 and 1024 (steps before
    // the first row alone differ) at d, e = 32/32, 32/64, 64/64 (64 keys a
    // step), 64/128 and 128/128 (32), bf16, data gate: fp32 within 0.1%,
    // int within 10%; and rotated (programs of 64 rows, 32 keys) at 32/32,
    // 64/64, 64/128.
    skipRows = 64;
    double groups = R / 64;
    // Split scores (rotated bf16): the keys are chunk_keys' f32, staged as
    // bf16 hi + lo through registers (fp32 and int per staged element from
    // the emulator at d, e = 32/32, 64/64, 64/128), three products.
    bool splitKeys = split.splitScores;
    double keyBytes = splitKeys ? 4 : z.s, staged = splitKeys ? K * DK : 0;
    double keyRuns = K * DK * keyBytes / 16, valueRuns = K * EV * z.s / 16;
    // Each score column's 2^sigma_j and a few more, per thread.
    double loads = 0.28 * K + 1;
    key.globalLoads = u(keyRuns + valueRuns + 2 * K);
    key.globalLoadBytes = u(K * DK * keyBytes + K * EV * z.s + 4 * K);
    key.globalLoadSectors = u(double(key.globalLoadBytes) / 32 + 16);
    // The gate sums' stores, and the split keys' two halves a run.
    key.sharedStores = u(67 + (splitKeys ? 2 * keyRuns : 0));
    key.sharedStoreBytes = u(K * DK * 2 * halves + K * EV * z.s + 8 * K);
    key.sharedStoreWavefronts = u(double(key.sharedStoreBytes) / 128 + 3);
    key.sharedLoads = u(loads * P);
    key.sharedLoadBytes = u(groups * K * (qk * DK + NV) * 2 +
                            halves * R * DK * 2 + 4 * loads * P);
    key.sharedLoadWavefronts = u(double(key.sharedLoadBytes) / 128);
    key.ldmatrix = u(W * DK / 16 * halves);
    key.wgmma = u(groups * (qk * DK / 16 + K / 16));
    key.wgmmaMultiplyAdds = u(R * K * (qk * DK + NV));
    key.fp32Alu = u(R * NV + 30.94 * P + 3.2 * staged);
    key.intAlu = u(58 * P + 6.3 * staged);
    key.sfu = u(4.25 * P);
    key.shuffles = u(5.25 * W + 5);
    key.barriers = 2;
    before.fp32Alu = u((5.19 + powerProducts) * R * K);
    before.sfu = u(16 * R);
    // A warpgroup whose rows all lie before a masked step's first key
    // skips its MMAs, fragments and weights: its share of the per-row work.
    skipped.wgmma = u(double(key.wgmma) / groups);
    skipped.wgmmaMultiplyAdds = u(double(key.wgmmaMultiplyAdds) / groups);
    skipped.ldmatrix = u(double(key.ldmatrix) / groups);
    skipped.fp32Alu = u((R * NV + double(diagonal.fp32Alu)) / groups);
    skipped.fp32Fma = u(double(diagonal.fp32Fma) / groups);
    skipped.intAlu = u(double(diagonal.intAlu) / groups);
    skipped.sfu = u((8 * R + double(diagonal.sfu)) / groups);
    skipped.sharedLoads = u(loads * P / groups);
    skipped.sharedLoadBytes = u(double(key.sharedLoadBytes) / groups);
    // [V | 1]'s ones column once a program: a 16-byte store per key.
    valueTail.intAlu = u(12 * P);
    valueTail.sharedStores = u(K);
    valueTail.sharedStoreBytes = u(16 * K);
  } else {
    key.mma[int(MmaShape::M16N8K16F16)] =
        u(W * (DK / 16 * K / 8 * qk + K / 16 * NV / 8 * pv));
    // The keys (B stored [n][k]) two fragments per ldmatrix x4.
    key.ldmatrix =
        u(W * (DK / 16 * halves * (1 + K / 16) + K / 16 * NV / 8 * pv));
    key.globalLoads = u(0.09 * keyUnits);
    key.globalLoadBytes = u(K * (z.d * (rot ? 4 : z.s) + EV * z.s + 4));
    // Per step, whichever way its scores are weighed: the staging, the dots,
    // the gate scan (shuffles, 2^sigma per thread) and each row's rescale.
    key.fp32Alu = u(1.309 * keyUnits);
    key.intAlu = u(3.985 * keyUnits);
    key.sfu = u(P + 8 * R);
    key.sharedLoads = u(0.2 * keyUnits);
    key.sharedLoadBytes = u(7.52 * keyUnits);
    key.sharedStores = u(0.0953 * keyUnits);
    key.sharedStoreBytes = u(1.401 * keyUnits);
    key.shuffles = u(W * (std::log2(K) + 5.25));
    key.barriers = 2;
    // The per-unit figures alone (the tail and split operands below are
    // staging, which every warp does), for the steps a warp skips.
    const OpCounts keyPerUnit = key;
    // [V | 1]'s columns past EV (the ones column, zeros) are staged in the
    // first key step only: per pass of P threads over them, each thread's
    // index math and the select of 1 or 0 (49 and 8: the emulator's count
    // at d = e = 64 in each step before), and a 16-byte store per row's
    // run, hi (and lo for f16 values). The per-unit figures above were
    // fitted with them in every step.
    double tailRuns = K * (NV - EV) / 8, tailPasses = std::ceil(tailRuns / P);
    valueTail.intAlu = u(49 * P * tailPasses);
    valueTail.fp32Alu = u(8 * P * tailPasses);
    valueTail.sharedStores = u(tailRuns * pv);
    valueTail.sharedStoreBytes = u(16 * tailRuns * pv);
    // (Less the first step's test, which every step makes.)
    OpCounts tailEveryStep = valueTail;
    tailEveryStep.intAlu -= std::min(tailEveryStep.intAlu, u(P));
    minus(key, tailEveryStep);
    // Split operands (f32 keys as bf16 hi + lo, f16 values too): fitted with
    // the factored state part above, per staged element.
    double splitKeys = K * DK * (split.splitScores ? 1 : 0),
           splitValues = K * NV * (split.splitValues ? 1 : 0);
    key.fp32Alu += u(12.79 * splitKeys + 8.22 * splitValues);
    key.sharedLoads += u(2.15 * splitKeys + 0.99 * splitValues);
    key.sharedLoadBytes += u(63.98 * splitKeys + 103.1 * splitValues);
    key.sharedStores += u(0.543 * splitKeys + 0.349 * splitValues);
    key.sharedStoreBytes += u(3.67 * splitKeys + 3.37 * splitValues);
    key.globalLoads += u(0.052 * splitKeys + 0.087 * splitValues);
    before.fp32Alu = u((6.10 + powerProducts) * R * K);
    before.fp32Fma = u(8 * R);
    before.sfu = u(16 * R);
    // A warp whose 16 rows all lie before a step's first key skips the
    // step's dots and weights: per warp and such step, its share of the
    // per-row work (the row part of the per-unit figures, a masked step's
    // weighing, the dots and their fragments).
    {
      const OpCounts &k = keyPerUnit;
      double rowShare = R * K / keyUnits / W;
      skipped.mma[int(MmaShape::M16N8K16F16)] =
          u(double(k.mma[int(MmaShape::M16N8K16F16)]) / W);
      skipped.ldmatrix = u(double(k.ldmatrix) / W);
      skipped.fp32Alu =
          u(double(k.fp32Alu) * rowShare + double(diagonal.fp32Alu) / W);
      skipped.fp32Fma = u(double(diagonal.fp32Fma) / W);
      skipped.intAlu =
          u(double(k.intAlu) * rowShare + double(diagonal.intAlu) / W);
      skipped.sfu = u(8 * 16 + double(diagonal.sfu) / W);
      skipped.sharedLoads = u(double(k.sharedLoads) * rowShare);
      skipped.sharedLoadBytes = u(double(k.sharedLoadBytes) * rowShare);
      // The row maxima's shuffles (the gate scan's run before the branch).
      skipped.shuffles = u(5.25);
    }
  }
  // q staged (and rotated), y stored element by element.
  base.globalLoads = u(R * z.d * (1 + rot) / 4);
  base.globalLoadBytes = u(R * z.d * z.s * (1 + rot) + 8 * R * rot);
  base.globalStores = u(R * EV);
  base.globalStoreBytes = u(R * EV * z.s);
  base.fp64 = u(9 * R * z.d * rot);
  base.sfu = u(2 * R * z.d * rot + 24 * R);
  base.shuffles = u(6.75 * W);
  base.barriers = u(4 + std::log2(R));
  base += valueTail; // once a program

  // Programs of one chunk of `tokens` tokens, `span` rows each (all of a
  // chunk shorter than R): key steps up to each tile's last row, those from
  // its first row on masked; the gates before the tile in block sums of P.
  double span = double(split.rowSpan);
  auto programOf = [&](double l, double tokens, double &keySteps) {
    double rows = std::min(span, tokens - l * span);
    keySteps = std::ceil((l * span + rows) / K);
    OpCounts c = times(state, stateSteps);
    double stepsBefore = std::floor(l * span / K);
    c += times(key, keySteps);
    c += times(before, stepsBefore);
    c += times(diagonal, keySteps - stepsBefore);
    // The warps whose rows all lie before a masked step's first key (the
    // step's first key `offset` tokens past the tile's first row).
    double done = 0;
    for (double step = stepsBefore; step < keySteps; ++step) {
      double offset = step * K - l * span;
      done += std::clamp(std::floor(offset / skipRows), 0.0, R / skipRows);
    }
    minus(c, times(skipped, done));
    c += base;
    c.globalLoadBytes += u(4 * l * span);
    c.barriers += u(2 * std::ceil(l * span / P));
    return c;
  };
  OpCounts total, heaviest;
  double most = -1;
  auto addChunk = [&](double tokens, double copies) {
    for (double l = 0; l * span < tokens; ++l) {
      double keySteps = 0;
      OpCounts c = programOf(l, tokens, keySteps);
      if (keySteps > most) {
        most = keySteps;
        heaviest = c;
      }
      total += times(c, copies);
    }
  };
  double C = double(chunk), full = std::floor(z.T / C), rest = z.T - full * C;
  double heads = z.Hq * z.B * blocks;
  if (full > 0)
    addChunk(C, full * heads);
  if (rest > 0)
    addChunk(rest, heads);
  double N = std::ceil(z.T / C);
  return {"chunk_output",
          launch({g(std::ceil(z.T / span)), g(z.Hq * blocks), g(z.B)}, g(P),
                 total, heaviest,
                 inputBytes(z) + N * z.H * z.B * stateHalvesBytes(z),
                 outputBytes(z)),
          {int(std::min<int64_t>(chunkOutputRegisters(split, cols(z.e)),
                                 split.registerCap(cols(z.e)))),
           split.sharedBytes(cols(z.d), cols(z.e))}};
}

/// A program of recurrent_output, one per (token, query head): the X
/// partial sums, then the window's ages a < min(t + 1, W), each a rotated
/// dot product and sums of the gates and angles between. Figures per
/// thread from the emulator as above (X = 44), quadratic in the mean
/// window. `staged`: recurrent_state's tail at T = 1, which reads the
/// token's q, k, v and decay from its workgroup rings (the emulator at p =
/// 2, d = e = 64, bf16, data gate: the partial sums are its only global
/// loads).
OpCounts recurrentOutputProgram(const Sizes &z, bool staged = false) {
  RecurrentSplit split =
      recurrentSplitOfDim(rows(z.D), cols(z.e), cols(z.H),
                          recurrentProgramsPerSM(int64_t(z.p), z.tensorCores));
  double P = double(split.threads), X = double(split.programs);
  const double W = 8;
  // Mean over the tokens of min(t + 1, W).
  double ages =
      z.T <= W ? (z.T + 1) / 2 : (W * (W + 1) / 2 + (z.T - W) * W) / z.T;
  double rows = std::ceil(X * z.e / (P * split.perThread)) + std::ceil(X / P);
  OpCounts thread;
  if (staged) {
    double partials = X * z.e / (P * split.perThread) + X / P;
    thread.globalLoads = u(partials);
    thread.globalLoadBytes = u(4 * X * (z.e + 1) / P);
    thread.sharedLoadBytes =
        u(96 * ages + 96 + 8 * z.d / P + 4 * split.perThread);
    thread.sharedStoreBytes = u(8);
    thread.fp32Fma = u(5 * ages + 5);
    thread.fp32Alu = u(30 * ages + 44);
    thread.fp64 = u(12 * ages - 6);
    thread.sfu = u(2 * ages);
    thread.intAlu = u(38 * ages + 25 + 10 * rows);
    return times(thread, P);
  }
  thread.globalLoads = u(2.65 + rows - 0.81 * ages + 1.83 * ages * ages);
  thread.globalLoadBytes = u(4 * double(thread.globalLoads) * 2);
  thread.sharedLoadBytes = u(96 * ages + 96);
  thread.sharedStoreBytes = u(8);
  thread.fp32Fma = u(5 * ages + 5);
  thread.fp32Alu = u(30 * ages + 65);
  thread.fp64 = u(12 * ages + 6);
  thread.sfu = u(2 * ages + 4);
  thread.intAlu = u(38 * ages + 168 + 10 * rows);
  return times(thread, P);
}

/// recurrent_state (a tile kernel): programs of whole state rows
/// (RecurrentSplit.h), each thread R columns of one row per tile and
/// `steps` tiles per program, every token: S and Z read and written once,
/// k, q, v and the token's decay staged in workgroup memory, phi per row
/// from there, the partial sums through shuffles. Per-thread figures per
/// token fitted on the emulator at p = 2, bf16, learned rotation, data gate
/// (gates assumed: the sizes do not say), d = e = 64 (steps = 3) and d =
/// 32, e = 64 (steps = 1), T = 1 and 4; the row's multiset is found once
/// per program, c_0 read once.
KernelEstimate recurrentState(const Sizes &z) {
  RecurrentSplit split =
      recurrentSplitOfDim(rows(z.D), cols(z.e), cols(z.H),
                          recurrentProgramsPerSM(int64_t(z.p), z.tensorCores));
  double P = double(split.threads), steps = double(split.steps),
         Q = double(split.threadsPerRow), group = z.Hq / z.H;
  double X = double(split.programs), rotating = z.d / P * (1 + group);
  OpCounts thread;
  // Per token: a state run and (a row's first thread) its Z per tile; the
  // gate (the first thread's); q, k and their pair partners; v; beta.
  double inputLoads = 1 / P + 2 * std::min(1.0, rotating) + z.e / P +
                      (z.learned ? 1 : 0),
         c0 = z.rotates ? 1 : 0;
  thread.globalLoads = u(z.T * (steps * (1 + 1 / Q) + inputLoads) + c0);
  thread.globalLoadBytes =
      u(4 * z.T * steps * (4 + 1 / Q) + 3 * z.T * inputLoads + 8 * c0);
  thread.globalStores = u(z.T * (steps * (1 + 1 / Q) + 0.5 * rotating));
  thread.globalStoreBytes = u(z.T * steps * (16 + 4 / Q));
  thread.sharedLoadBytes = u(z.T * (160 + 36 * steps * group));
  thread.sharedStoreBytes = u(z.T * 13);
  thread.fp32Fma = u(z.T * 10 * steps * group);
  thread.fp32Alu = u(z.T * (51 + 9 * steps * group));
  thread.fp64 = u(z.T * 11 + 4);
  thread.sfu = u(z.T * (2 + 2 * steps));
  thread.intAlu = u(21 * std::log2(std::max(2.0, z.d)) * 2 + 40 +
                    z.T * (43.5 + 32.5 * steps * group));
  OpCounts block = times(thread, P);
  double blocks = X * z.H * z.B, stateBytes = z.B * z.H * 4 * z.D * (z.e + 1);
  double partials = z.B * z.T * z.Hq * X * (z.e + 1) * (z.s == 4 ? 8 : 4);
  OpCounts total = times(block, blocks), heaviest = block;
  double loads = stateBytes + inputBytes(z), stores = stateBytes + partials;
  if (!runtime::launchesKernel(runtime::KernelId::RecurrentOutput, z.tokens)) {
    // The last program of each state writes y for the group's query heads
    // (recurrent_output's programs, which are not launched): the arrival
    // (a few operations), then the reduction of the partial sums.
    OpCounts tail = times(recurrentOutputProgram(z, /*staged=*/true), group);
    heaviest += tail;
    total += times(tail, z.H * z.B);
    loads += partials;
    stores += outputBytes(z);
  }
  return {"recurrent_state",
          launch({g(X), g(z.H), g(z.B)}, g(P), total, heaviest, loads, stores),
          // ptxas' registers: its own choice (117 at p = 2, d = e = 64),
          // or the cap of three programs per SM.
          {split.programsPerSM == 3
               ? int(registerCap(split.programsPerSM, int64_t(P)))
               : 117,
           8448}};
}

/// recurrent_output (launched for T > 1): recurrentOutputProgram per
/// (token, query head).
KernelEstimate recurrentOutput(const Sizes &z) {
  RecurrentSplit split =
      recurrentSplitOfDim(rows(z.D), cols(z.e), cols(z.H),
                          recurrentProgramsPerSM(int64_t(z.p), z.tensorCores));
  double P = double(split.threads), X = double(split.programs);
  OpCounts block = recurrentOutputProgram(z);
  double blocks = z.T * z.Hq * z.B;
  double partials = z.B * z.T * z.Hq * X * (z.e + 1) * (z.s == 4 ? 8 : 4);
  return {"recurrent_output",
          launch({g(z.T), g(z.Hq), g(z.B)}, g(P), times(block, blocks), block,
                 partials + inputBytes(z), outputBytes(z)),
          {77, 4096}};
}

} // namespace

std::vector<KernelEstimate> sympow::estimateKernels(const LayerSizes &sizes,
                                                    Formulation formulation,
                                                    int64_t chunk) {
  Sizes z = sizesOf(sizes);
  switch (formulation) {
  case Formulation::Attention: {
    std::optional<AttentionTile> tile = attentionTile(
        z.tensorCores, z.rotates, z.relative, cols(z.d), cols(z.e));
    if (!tile)
      return {attention(z)};
    std::vector<KernelEstimate> out;
    if (tile->splitScores) { // q and k rotated once
      out.push_back(chunkCounts(z, /*readsC=*/false));
      out.push_back(rotation(z, /*halves=*/true));
    }
    out.push_back(tileAttention(z, *tile));
    return out;
  }
  case Formulation::Recurrent:
    // One token: recurrent_state writes y itself (its last programs).
    if (!runtime::launchesKernel(runtime::KernelId::RecurrentOutput, z.tokens))
      return {recurrentState(z)};
    return {recurrentState(z), recurrentOutput(z)};
  case Formulation::Chunked: {
    double C = double(std::max<int64_t>(1, chunk));
    std::vector<KernelEstimate> out;
    if (z.rotates)
      out.push_back(chunkCounts(z, /*readsC=*/true));
    std::optional<ChunkStatePass> pass =
        chunkStatePass(int64_t(z.p), cols(z.d), cols(z.e), chunk, cols(z.s),
                       sizes.f16, z.rotates);
    std::optional<ChunkOutputTile> tile =
        chunkOutputTile(chunk, int64_t(z.p), cols(z.d), cols(z.e), sizes.f16,
                        z.rotates, pass.has_value());
    if (pass) {
      if (z.rotates)
        out.push_back(rotation(z, /*halves=*/false));
      out.push_back(chunkStatePass(z, C, *pass, sizes.f16));
    } else {
      out.push_back(chunkStates(z, C));
      out.push_back(chunkScan(z, C));
    }
    out.push_back(tile ? chunkOutputTile(z, chunk, *tile) : chunkOutput(z, C));
    return out;
  }
  }
  return {};
}

double sympow::predictedLayerSeconds(const LayerSizes &sizes,
                                     Formulation formulation, int64_t chunk,
                                     const GpuSpec &gpu) {
  double seconds = 0;
  for (const KernelEstimate &k : estimateKernels(sizes, formulation, chunk))
    seconds += predictKernel(k.counts, k.resources, gpu).seconds;
  return seconds;
}
