//===- ChunkStatePass.cpp - chunk_state_pass, a tile kernel ---------------===//
//
// The state before every chunk, in one pass over the tokens, parallel over
// tiles of the state's rows (issue 12; flash-linear-attention's chunk_fwd_h
// splits its state the same way). Program (x, h, b) keeps rows
// [x R, x R + R) of [S | Z] of head h, sequence b, and walks the tokens in
// steps of K that never straddle a chunk:
//
//   at each chunk's first step:  S_n, Z_n (the workspace) <- [S | Z]
//   per step (tokens t0 .. t0 + K - 1 of one chunk; G the inclusive
//   prefix of the step's log gates, saturated as everywhere):
//     [S | Z] = exp(G_last) [S | Z] + Phi^T [V | 1],
//     Phi[t, f] = w_t phi_f(k_t),  w_t = exp(G_last - G_t)
//   (k_t rotated by chunk_keys for rotating schedules, RotatedOperands.cpp;
//   G_last - G_t as the sum of the gates after t: one warp's reversed scan
//   of the step's gates, two tokens a lane)
//   finally [S | Z] (the layer's state) <- [S | Z]; c <- counts[T - 1].
//
// The warpgroups specialize (sympow_tile.warpgroups). Warpgroup 2, the
// producer, loads each step's keys, values and gates two steps ahead into
// registers (or copies bf16 values by async_copy two steps ahead, where
// holding them would pass 32 registers: ChunkStatePass::copiedValues) and
// stages them a step ahead: the keys in pairs of tokens (bf16
// as they come, else f32), the weights from the gates, the values as bf16
// (hi + lo for f16) in the MMAs' layout with a column of ones after them.
// Warpgroups 0 and 1, the consumers, each take half of a step's tokens
// into accumulators of their own of all R rows of [S | Z | 0 ...] (Z from
// the ones; where e > 64 of one block of the value columns, the program's
// column block, beside its rows' Z, which the last block writes), building
// their Phi^T elements in registers as the A fragments of register-A warpgroup
// MMAs (wgmma on sm_90a, mma.sync per warp before), split once into hi + lo
// bf16 halves (about 16 bits, the accuracy the 16-bit inputs' states are held
// to; for bf16 keys at p = 2 built by packed bf16 arithmetic,
// weightedKeyProducts), against the staged values (bf16, exact for bf16 inputs;
// hi + lo for f16); their parts are summed through workgroup memory where a
// chunk state is written. Every array a step writes has two buffers (step i's
// is i % 2): one barrier a step, which the regions' loops meet. Where the
// producer's loads or the accumulators do not fit its registers, the same
// producer code and consumers side by side (each all rows of half the value
// columns, Z in f32 partial sums, Phi^T built in workgroup memory, which both
// multiply) run in turn on 256 threads, three barriers a step. Chunk states are
// written once (the old chunk_states + chunk_scan wrote each chunk's own
// contribution, then read and rewrote them all). The split (R, K, threads,
// layouts, staging runs) is sympow/Support/ChunkStatePass.h.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "SymmetricPowerTiles.h"
#include "TileKernels.h"

#include "sympow/Compiler/GPU/RuntimeKinds.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/ChunkStatePass.h"

#include <cmath>
#include <functional>
#include <optional>

using namespace mlir;

namespace sympow::chunked {

/// w k_a k_b as bf16 hi + lo from bf16 tiles k_a, k_b and w's halves, in
/// bf16 arithmetic (a bf16x2 instruction for a pair of tokens): k_a k_b has
/// 16 bits, so p = RN(k_a k_b) and its rest fma(k_a, k_b, -p) are exact;
/// hi = RN(p w_hi) with its exact rest r, lo = RN(p w_lo + RN(rest_p w_hi
/// + r)). Each rounding is of a term about 2^-8 of the product's size, so
/// hi + lo is within about 2^-15 of w k_a k_b relative (a split of the f32
/// product, within 2^-17, took about twice the instructions: the keys'
/// extension to f32, two multiplies and the split's four).
static std::pair<Value, Value>
weightedKeyProducts(Emitter &E, Value ka, Value kb,
                    std::pair<Value, Value> w) {
  Value p = E.mul(ka, kb);
  Value pRest = E.fma(ka, kb, E.neg(p));
  Value hi = E.mul(p, w.first);
  Value r = E.fma(p, w.first, E.neg(hi));
  Value lo = E.fma(p, w.second, E.fma(pRest, w.first, r));
  return {hi, lo};
}

LogicalResult buildStatePass(OpBuilder &b, gpu::GPUModuleOp module,
                             const AttentionKernelSpec &s, int64_t C,
                             int64_t dim, const ChunkStatePass &split) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  Type f32 = b.getF32Type();
  int64_t P = split.threads(), R = split.rowsPerProgram,
          K = split.tokensPerStep;
  constexpr int64_t PC = ChunkStatePass::consumerThreads;
  int64_t PP = split.producerThreads();
  // bf16 values are exact as bf16; f16 ones as bf16 hi + lo.
  bool splitV = s.dtype == ElementKind::F16;
  Type bf16 = b.getBF16Type();
  // Each consumer thread builds one row's run of RK tokens of Phi^T, four
  // threads a row.
  int64_t RK = R * K / PC;
  assert(K / RK == 4 && "four threads a row of Phi^T");
  using gpu_detail::workgroupMemRef;
  // The staged keys: rows of pairs of tokens (keyRowElements).
  bool bf16Keys = ChunkStatePass::bf16Keys(splitV, s.rotates());
  int64_t KP = K / 2, KS2 = ChunkStatePass::keyRowElements(s.d, bf16Keys),
          VE = split.valueElements(s.e);
  // The value columns this program takes (a block of them where programs
  // split the columns: ChunkStatePass::columnBlocks).
  int64_t EC = split.programColumns(s.e), CB = split.columnBlocks;
  assert((CB == 1 || split.specialized) && "column blocks with a producer");
  // Where pair row j starts, for j a multiple of 4 (its 4 rows share one
  // shift: keyRowShift).
  auto keyRowAt = [&](int64_t j) {
    assert(j % 4 == 0 && "a consumer's rows share the shift");
    return j * KS2 + ChunkStatePass::keyRowShift(j, bf16Keys);
  };
  // Elements between blocks of 8 value columns, and between groups of 8
  // rows of Phi^T (ChunkStatePass.h).
  int64_t VB = split.valueBlockBytes() / 2, PG = split.phiGroupBytes() / 2;
  // One step's part of each double-buffered array.
  int64_t keyBuffer = split.keyElements(s.d, bf16Keys),
          phiBuffer = split.phiElements(),
          weightBuffer = split.weightElements(),
          halvesBuffer = split.weightHalfElements();
  // The workgroup arrays, each by its index; the MMAs' operands start on
  // 16 bytes (TileWarpgroupOps.td: matrix descriptors).
  SmallVector<Type> workgroup;
  SmallVector<unsigned> mmaOperands;
  auto array = [&](Type type, bool mmaOperand = false) {
    if (mmaOperand)
      mmaOperands.push_back(workgroup.size());
    workgroup.push_back(type);
    return workgroup.size() - 1;
  };
  int64_t NB = split.buffers();
  // With a producer of its own the consumers build Phi^T in registers (the
  // A fragments of their MMAs) and sum their partial states through
  // `exchange`; in turn they build it in workgroup memory.
  bool inRegisters = split.specialized;
  // bf16 keys staged as they come, others as f32 (ChunkStatePass.h).
  Type keyType = bf16Keys ? bf16 : f32;
  size_t keysArray = array(workgroupMemRef({NB * keyBuffer}, keyType));
  std::optional<size_t> phiHiArray, phiLoArray;
  if (!inRegisters) {
    phiHiArray = array(workgroupMemRef({NB * phiBuffer}, bf16), true);
    phiLoArray = array(workgroupMemRef({NB * phiBuffer}, bf16), true);
  }
  size_t weightsArray = array(workgroupMemRef({NB * weightBuffer}, f32)),
         valuesHiArray =
             array(workgroupMemRef({split.valueBuffers() * VE}, bf16), true);
  std::optional<size_t> weightHalvesArray;
  if (split.weightHalves)
    weightHalvesArray = array(workgroupMemRef({NB * halvesBuffer}, bf16));
  std::optional<size_t> valuesLoArray;
  if (splitV)
    valuesLoArray = array(workgroupMemRef({NB * VE}, bf16), true);
  // Each row's factor of phi (rowFactors below).
  size_t rowFactorsArray = array(workgroupMemRef({R}, f32));
  std::optional<size_t> inverseFactorsArray, initialZArray, exchangeArray,
      rowsStartArray;
  if (inRegisters) {
    inverseFactorsArray = array(workgroupMemRef({R}, f32));
    initialZArray = array(workgroupMemRef({R}, f32));
    exchangeArray =
        array(workgroupMemRef({split.exchangeElements(s.e)}, f32), true);
    rowsStartArray = array(workgroupMemRef({1}, b.getI64Type()));
  }
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::ChunkStatePass, P,
      {split.gridPrograms(), s.h, tile::KernelAttr::kBatch}, workgroup, args,
      C);
  tile::setMinBlocksPerSM(fn, split.minProgramsPerSM(s.e));
  for (unsigned i : mmaOperands)
    fn.setWorkgroupAttributionAttr(i, "llvm.align", b.getI64IntegerAttr(16));
  Emitter E(b, loc);
  gpu_detail::MatrixTiles m{b, loc, ChunkStatePass::warpsM,
                            ChunkStatePass::warpsN, /*columnMajor=*/true};
  using runtime::KernelArg;
  // Rotating schedules read the keys chunk_keys rotated (f32).
  Value k = args.get(fn, s.rotates() ? KernelArg::RotatedK : KernelArg::K),
        v = args.get(fn, KernelArg::V);
  Value logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma);
  Value counts = args.get(fn, KernelArg::Counts);
  Value S = args.get(fn, KernelArg::S), Z = args.get(fn, KernelArg::Z),
        c = args.get(fn, KernelArg::C);
  Value chunkHalves = args.get(fn, KernelArg::ChunkStateHalves);
  auto wg = fn.getWorkgroupAttributions();
  auto arrayAt = [&](std::optional<size_t> i) {
    return i ? Value(wg[*i]) : Value();
  };
  Value keys = wg[keysArray], phiHi = arrayAt(phiHiArray),
        phiLo = arrayAt(phiLoArray), weights = wg[weightsArray];
  Value valuesHi = wg[valuesHiArray], valuesLo = arrayAt(valuesLoArray),
        weightHalves = arrayAt(weightHalvesArray);
  Value rowFactors = wg[rowFactorsArray],
        inverseFactors = arrayAt(inverseFactorsArray),
        initialZ = arrayAt(initialZArray), exchange = arrayAt(exchangeArray),
        rowsStart = arrayAt(rowsStartArray);

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value x = ids.x, h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value N = E.div(E.add(T, E.idx(C - 1)), E.idx(C));
  int64_t stepsPerChunk = (C + K - 1) / K;
  Value bh = E.add(E.mul(batch, E.idx(s.h)), h);
  // Program x: row tile x / CB, column block x % CB.
  Value columnBlock = E.rem(x, E.idx(CB));
  Value firstRow = E.mul(E.div(x, E.idx(CB)), E.idx(R));
  Value firstColumn = E.mul(columnBlock, E.idx(EC));
  // Z's block (after the last block's columns) is the last block's to write.
  Value writesZ = E.cmpi(arith::CmpIPredicate::eq, columnBlock, E.idx(CB - 1));
  // The chunk states' layout, what chunk_output reads: row by row, or each
  // 8-column piece's rows in order where its bulk copies read them
  // (ChunkOutputTile::stateOffset): a row's stride and the pieces' (0: row
  // by row).
  std::optional<ChunkOutputTile> outputTile = outputTileOf(s, C);
  bool pieceMajor = outputTile && outputTile->bulkState(s.e);
  int64_t stateRowStride =
              ChunkOutputTile::stateOffset(dim, s.e, pieceMajor, 1, 0),
          statePieces =
              pieceMajor ? ChunkOutputTile::statePieceElements(dim) : 0;
  Value rows = E.min(E.idx(R), E.sub(E.idx(dim), firstRow));
  Value cols = E.idx(s.e);
  Value gamma = logGamma ? E.load(logGamma, {h}) : Value();
  Value steps = E.mul(N, E.idx(stepsPerChunk));
  // Where step i lies: its chunk n, its offset in the chunk, its first
  // token t0 and how many of its tokens are inside the chunk and before T
  // (none from the last step on); in i32 (a sequence is below 2^31 tokens), as
  // are the masks that compare tokens with `valid`: in index (64 bits) each
  // compare and select of the step was two SASS instructions. t0 also as an
  // index, for the addresses.
  Type i32 = b.getI32Type();
  Value T32 = E.indexCast(T, i32);
  // `opens`: the step is its chunk's first in the walk, which takes a
  // chunk's steps last to first where the decay is once a chunk
  // (ChunkStatePass::chunkDecay), else in order.
  struct Step {
    Value n, inChunk, t0, t0Index, valid, opens;
  };
  auto stepAt = [&](Value i) {
    Step st;
    Value i32Step = E.indexCast(i, i32);
    st.n = E.div(i32Step, E.i32(stepsPerChunk));
    Value walked = E.rem(i32Step, E.i32(stepsPerChunk));
    st.opens = E.cmpi(arith::CmpIPredicate::eq, walked, E.i32(0));
    if (split.chunkDecay)
      walked = E.sub(E.i32(stepsPerChunk - 1), walked);
    st.inChunk = E.mul(walked, E.i32(K));
    st.t0 = E.add(E.mul(st.n, E.i32(C)), st.inChunk);
    st.t0Index = E.indexCast(st.t0, b.getIndexType());
    Value left =
        E.min(E.sub(E.i32(C), st.inChunk), E.sub(E.max(T32, st.t0), st.t0));
    st.valid = E.min(E.i32(K), left);
    return st;
  };
  // A buffer's offset for parity i % 2 (a constant 0 with one buffer, so
  // that addresses stay loop-invariant).
  auto bufferOf = [&](Value parity, int64_t elements) -> Value {
    if (split.buffers() == 1)
      return E.idx(0);
    return E.mul(parity, E.idx(elements));
  };
  auto parityOf = [&](Value i) { return E.rem(i, E.idx(2)); };
  // Step i's buffer of the staged values: i % 3 where they are copied
  // (ChunkStatePass::copiedValues), else its parity.
  // (In i32: an index remainder by 3 is a 64-bit multiply-high, whose
  // registers spilled the producer at d = 128.)
  auto valueSlotOf = [&](Value i) {
    if (split.valueBuffers() == 2)
      return parityOf(i);
    Type i32 = b.getI32Type();
    return E.indexCast(E.rem(E.indexCast(i, i32), E.i32(split.valueBuffers())),
                       b.getIndexType());
  };
  // Step `parity`'s decay and its decay to its chunk's end, as the
  // producer staged them beside its weights.
  auto stagedDecay = [&](Value parity, int64_t offset) {
    return E.load(weights,
                  {E.add(bufferOf(parity, weightBuffer), E.idx(offset))});
  };
  auto stepDecayOf = [&](Value parity) {
    return stagedDecay(parity, ChunkStatePass::stepDecayOffset(K));
  };
  auto chunkEndDecayOf = [&](Value parity) {
    return stagedDecay(parity, ChunkStatePass::chunkEndDecayOffset(K));
  };
  Value next = E.idx(1);

  // A role's code, emitted at the builder's insertion point. With a
  // producer of its own each role runs in its warpgroups region
  // (runRegion below: before the first barrier, between it and the loop,
  // step i of 0 .. steps - 1 after the step's barrier, and after the last
  // barrier; each returns the values its loop carries); else both in turn
  // on the same threads (runInTurn, from the pieces below).
  struct Role {
    std::function<SmallVector<Value>()> start;
    std::function<SmallVector<Value>(ValueRange)> beforeFirst;
    // Step i (its buffers those of parity i % 2).
    std::function<SmallVector<Value>(Value, ValueRange)> step;
    std::function<void(ValueRange)> finish;
    // (Regions: what runs after the loop, before the last barrier.)
    std::function<void(ValueRange)> last;
    // The pieces of a step for the schedule in turn (runInTurn): the
    // producer's loads of step i and its staging of them; the consumers'
    // Phi^T (Z's partial sums and the step's decay after it), MMAs and the
    // state before a chunk.
    std::function<SmallVector<Value>(Value)> load;
    std::function<void(ValueRange, Value)> stageKeys, stageValues;
    std::function<std::pair<Value, Value>(Value)> build;
    std::function<Value(Value, Value)> multiply;
    std::function<void(Value, Value, Value)> halves;
  };

  // The producer: a step's keys, values and gates loaded ahead into
  // registers (the pass is latency-bound when every thread waits on its
  // loads, docs/Performance.md: with a region of its own two steps ahead,
  // in turn one), then staged (with a region of its own a step ahead): keys in
  // pairs of tokens (bf16 as they come, else as f32), the weights from a scan
  // of the gates, values as bf16 (hi + lo for f16) in the MMA's layout.
  auto producerRole = [&](gpu_detail::Tiles &t,
                          llvm::function_ref<void(Role &)> then) {
    Value thread = t.range();
    // A per-thread token index (loop-invariant) as i32, for the masks.
    auto tokens32 = [&](Value x) -> Value {
      return arith::IndexCastOp::create(b, loc, t.like(x, i32), x);
    };
    // Each thread's runs of the step's keys (L adjacent dims of a pair of
    // tokens, 16 bytes a token at most) and values (LV adjacent columns of
    // one token): row j (a pair's or a token's) and first column, one each
    // per thread, so that their index math is done once per run; in the
    // tile (null where every thread's runs are).
    struct Run {
      Value j, col, inTile;
    };
    int64_t L = split.keyRun(s.d, s.rotates()), LV = split.valueRun(s.e);
    Value valueColumn = t.splat(firstColumn);
    // The key runs go down the pairs first: a quarter warp's 16-byte stores
    // then take 8 rows 8 banks apart, two to a bank (four along a row).
    int64_t keyRuns = KP * s.d / L;
    // A later pass whose shift is a whole number of rows (or columns of
    // pairs) has the first pass's row and column plus a constant: then
    // every pass's global and workgroup addresses are the first's plus an
    // immediate, one pointer for all (LLVM does not see through the div and
    // rem: a pointer per pass took the producer's registers past 80).
    auto keyRunAt = [&](int64_t from) {
      Run r;
      Value run = E.add(thread, t.index(from));
      if (from % KP == 0) {
        r.j = E.rem(thread, t.index(KP));
        r.col = E.mul(E.add(E.div(thread, t.index(KP)), t.index(from / KP)),
                      t.index(L));
      } else {
        r.j = E.rem(run, t.index(KP));
        r.col = E.mul(E.div(run, t.index(KP)), t.index(L));
      }
      if (from + PP > keyRuns)
        r.inTile = E.ult(run, t.index(keyRuns));
      return r;
    };
    auto runAt = [&](int64_t from, int64_t width, int64_t runLength) {
      Run r;
      Value first = E.mul(thread, t.index(runLength));
      Value start = E.add(first, t.index(from));
      if (from % width == 0) {
        r.j = E.add(E.div(first, t.index(width)), t.index(from / width));
        r.col = E.rem(first, t.index(width));
      } else {
        r.j = E.div(start, t.index(width));
        r.col = E.rem(start, t.index(width));
      }
      if (from + PP * runLength > K * width)
        r.inTile = E.ult(start, t.index(K * width));
      return r;
    };
    // A run's one value for each of its L slots.
    auto spread = [&](Value x, int64_t L) {
      return x ? t.expand(x, L) : Value();
    };
    // The first warp scans the gates and stages the weights (a branch
    // uniform in the warp, with no barrier inside); the others skip it.
    Value weightsWarp = E.ult(
        E.rem(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), E.idx(PP)),
        E.idx(32));
    Type gateType = t.type(f32, 2);
    auto tokenBase = [&](const Step &st, int64_t width) {
      return t.splat(
          gpu_detail::tokenOffset(E, batch, T, st.t0Index, s.h, h, width));
    };
    // Step st's keys (two loads a run) and log gates (0 past valid), as
    // loaded.
    auto fetchKeys = [&](const Step &st) {
      SmallVector<Value> loaded;
      for (int64_t from = 0; from < keyRuns; from += PP) {
        Run r = keyRunAt(from);
        // [b, t0 + 2 j + second, h, dd] of a [B, T, H, d] tensor.
        Value token = E.mul(r.j, t.index(2));
        Value at = E.add(
            E.add(tokenBase(st, s.d), E.mul(token, t.index(s.h * s.d))), r.col);
        for (int64_t second : {0, 1}) {
          Value live = t.logicalAnd(
              r.inTile, E.ult(tokens32(E.add(token, t.index(second))),
                              t.splat(st.valid)));
          Value from = E.add(at, t.index(second * s.h * s.d));
          loaded.push_back(t.load(k, t.run(from, L), spread(live, L), L > 1));
        }
      }
      // Lane l's tokens 2 l and 2 l + 1, in the first warp alone (K <= 64).
      loaded.push_back(E.ifElse(
          weightsWarp, gateType,
          [&] {
            return tokenGates(t, s, logG, gamma, batch, T, h, st.t0Index,
                              st.valid, /*perThread=*/2);
          },
          [&] { return t.constant(f32, 0.0, 2); }));
      return loaded;
    };
    // A value run's first element in v (token j of step st, the program's
    // column block) and in a staged buffer (N-major core matrices: column
    // col of token j at (col / 8) VB + 8 j + col % 8).
    auto valueSource = [&](const Step &st, const Run &r) {
      return E.add(E.add(tokenBase(st, s.e), E.mul(r.j, t.index(s.h * s.e))),
                   CB == 1 ? r.col : E.add(r.col, valueColumn));
    };
    auto valueOffset = [&](const Run &r) {
      return E.add(E.add(E.mul(E.div(r.col, t.index(8)), t.index(VB)),
                         E.mul(r.j, t.index(8))),
                   E.rem(r.col, t.index(8)));
    };
    auto fetchValues = [&](const Step &st) {
      SmallVector<Value> loaded;
      for (int64_t from = 0; from < K * EC; from += PP * LV) {
        Run r = runAt(from, EC, LV);
        Value live =
            t.logicalAnd(r.inTile, E.ult(tokens32(r.j), t.splat(st.valid)));
        loaded.push_back(
            t.load(v, t.run(valueSource(st, r), LV), spread(live, LV), LV > 1));
      }
      return loaded;
    };
    // Step i's keys into its buffer, and its weights: w_j = exp(the sum of
    // the gates after j in the step + the log decay from the step's end to
    // its chunk's end), 0 past valid, from one warp's reversed scan of the
    // gates (lane l holds tokens 2 l and 2 l + 1, no workgroup memory), as
    // f32 and, where the consumers multiply packed bf16, as bf16 hi + lo;
    // after them the step's decay and its decay to the chunk's end. That
    // log decay (0 where the decay is not once a chunk) is 0 where the step
    // opens its chunk, else `before`: the step before's in the walk, which
    // the returned value is for the next. The exps are the hardware's
    // (expApprox), where libdevice's take 8 instructions each.
    assert(K <= 64 && llvm::isPowerOf2_64(K) && "a step's gates in one warp");
    auto stageKeys = [&](ValueRange loaded, Value i, Value parity,
                         Value before) -> Value {
      Value keyAt = t.splat(bufferOf(parity, keyBuffer));
      auto next = loaded.begin();
      for (int64_t from = 0; from < keyRuns; from += PP) {
        Run r = keyRunAt(from);
        Value even = t.convert(*next++, keyType),
              odd = t.convert(*next++, keyType);
        // (keyRowShift: rows j with j & 4 start 4 words on.)
        Value shift = E.mul(E.rem(E.div(r.j, t.index(4)), t.index(2)),
                            t.index(ChunkStatePass::keyRowShift(4, bf16Keys)));
        Value at = E.add(keyAt, E.add(E.add(E.mul(r.j, t.index(KS2)), shift),
                                      E.mul(r.col, t.index(2))));
        t.store(t.interleave(even, odd), keys, t.run(at, 2 * L),
                spread(r.inTile, 2 * L), /*contiguous=*/true);
      }
      Value g = *next;
      Value token = t.range(2);
      Value toChunkEnd = t.constant(f32, 0.0, 2);
      if (before)
        toChunkEnd = E.select(t.splat(stepAt(i).opens, 2), toChunkEnd, before);
      return E.ifElse(
          weightsWarp, gateType,
          [&] {
            Value fromJ = tile::ScanOp::create(b, loc, g, K, /*reverse=*/true);
            Value total = tile::SegmentReduceOp::create(
                b, loc, tile::ReduceKind::sum, g, K);
            Value w =
                E.select(E.ult(tokens32(token), t.splat(stepAt(i).valid, 2)),
                         E.expApprox(E.add(E.sub(fromJ, g), toChunkEnd)),
                         t.constant(f32, 0.0, 2));
            Value inStep = t.expand(E.ult(thread, t.index(K / 2)), 2);
            Value weightAt = t.splat(bufferOf(parity, weightBuffer), 2);
            t.store(w, weights, E.add(weightAt, token), inStep,
                    /*contiguous=*/true);
            if (weightHalves) {
              // Pair l's hi halves at 4 l, its lo halves after them.
              auto [hi, lo] = tile::splitBf16(b, loc, w);
              Value pairAt = E.mul(E.div(token, t.index(2, 2)), t.index(2, 2));
              Value at = E.add(t.splat(bufferOf(parity, halvesBuffer), 2),
                               E.add(token, pairAt));
              t.store(hi, weightHalves, at, inStep, /*contiguous=*/true);
              t.store(lo, weightHalves, E.add(at, t.index(2, 2)), inStep,
                      /*contiguous=*/true);
            }
            // The two decays, one store of thread 0.
            static_assert(ChunkStatePass::chunkEndDecayOffset(0) ==
                              ChunkStatePass::stepDecayOffset(0) + 1,
                          "the decays side by side");
            Value after = E.add(toChunkEnd, total);
            Value second = t.eq(E.rem(token, t.index(2, 2)), t.index(1, 2));
            t.store(E.expApprox(E.select(second, after, total)), weights,
                    E.add(weightAt,
                          E.add(t.index(ChunkStatePass::stepDecayOffset(K), 2),
                                E.rem(token, t.index(2, 2)))),
                    t.expand(E.ult(thread, t.index(1)), 2),
                    /*contiguous=*/true);
            return after;
          },
          [&] { return toChunkEnd; });
    };
    // Step i's values into its buffer, in the MMA's layout, N-major core
    // matrices: the run of token j, columns col .. col + LV - 1 at
    // (col / 8) VB + 8 j + col % 8.
    auto stageValues = [&](ValueRange loaded, Value parity) {
      Value valueAt = t.splat(bufferOf(parity, VE));
      auto next = loaded.begin();
      for (int64_t from = 0; from < K * EC; from += PP * LV) {
        Run r = runAt(from, EC, LV);
        Value at = valueOffset(r);
        t.storeBf16(t.convert(*next++, f32), valuesHi, valuesLo,
                    t.run(E.add(valueAt, at), LV), spread(r.inTile, LV),
                    LV > 1);
      }
    };

    // Step st's values copied into buffer `slot` (copiedValues): the same
    // runs, 16 bytes each, zeros past valid (weights 0 there, but a NaN
    // past T would make a NaN).
    // Passes a whole number of tokens apart take the first pass's source
    // and destination plus constants (separate 64-bit sources per pass,
    // kept through the loop, spilled the producer at d = 128).
    auto copyValues = [&](const Step &st, Value slot) {
      Value valueAt = t.splat(E.mul(slot, E.idx(VE)));
      Run first = runAt(0, EC, LV);
      Value firstSource = valueSource(st, first), firstAt = valueOffset(first);
      for (int64_t from = 0; from < K * EC; from += PP * LV) {
        Run r = runAt(from, EC, LV);
        Value source, at;
        if (from % EC == 0) {
          int64_t tokens = from / EC;
          source = E.add(firstSource, t.index(tokens * s.h * s.e));
          at = E.add(firstAt, t.index(8 * tokens));
        } else {
          source = valueSource(st, r);
          at = valueOffset(r);
        }
        Value live =
            t.logicalAnd(r.inTile, E.ult(tokens32(r.j), t.splat(st.valid)));
        // (A copy that reads nothing still names a source in the buffer:
        // tokens past T take the tensor's first run.)
        t.asyncCopy(v, E.select(live, source, t.index(0)), valuesHi,
                    E.add(valueAt, at), LV, r.inTile, live);
      }
    };

    // The column of ones after the values, [1 0 ... 0] at every token of
    // both buffers (never overwritten): the MMAs then add Phi^T's row sums,
    // Z, in column e.
    auto stageOnes = [&] {
      Value token = t.range();
      Value one =
          E.select(t.eq(E.rem(t.range(8), t.index(8, 8)), t.index(0, 8)),
                   t.constant(f32, 1.0, 8), t.constant(f32, 0.0, 8));
      for (int64_t buffer = 0; buffer < split.valueBuffers(); ++buffer) {
        Value at =
            E.add(E.mul(token, t.index(8)), t.index(buffer * VE + EC / 8 * VB));
        t.storeBf16(one, valuesHi, valuesLo, t.run(at, 8),
                    t.expand(E.ult(token, t.index(K)), 8), /*contiguous=*/true);
      }
    };

    // Step i + 1's keys, weights and values into its buffers, for the
    // consumers after the next barrier; step i + 2's loaded. The buffers'
    // last readers are done (the consumers' step i - 1, before the
    // barrier).
    // (The loop carries the loads and, where the decay is once a chunk,
    // the log decay stageKeys hands on.)
    size_t keyLoads = 2 * ((keyRuns + PP - 1) / PP) + 1;
    bool carriesDecay = split.chunkDecay;
    bool copied = split.copiedValues;
    auto step = [&](Value i, ValueRange carried) {
      ValueRange loaded = carriesDecay ? carried.drop_back() : carried;
      size_t valueLoads = loaded.size() - keyLoads;
      Value i1 = E.add(i, next);
      Value parity = parityOf(i1);
      if (copied) {
        // Step i + 1's copies (issued a step ago) landed; step i + 2's into
        // the buffer step i - 1 left (its MMAs done before this step's
        // barrier).
        t.asyncWait();
        Value i2 = E.add(i1, next);
        copyValues(stepAt(i2), valueSlotOf(i2));
      } else {
        stageValues(loaded.take_front(valueLoads), parity);
      }
      Value after = stageKeys(loaded.drop_front(valueLoads), i1, parity,
                              carriesDecay ? carried.back() : Value());
      tile::AsyncProxyFenceOp::create(b, loc);
      // (Where step i + 2's place is first needed: computed at the step's
      // start it took the registers of two f16 programs per SM at d = 64.)
      Step st = stepAt(E.add(i1, next));
      SmallVector<Value> ahead =
          copied ? SmallVector<Value>{} : fetchValues(st);
      llvm::append_range(ahead, fetchKeys(st));
      if (carriesDecay)
        ahead.push_back(after);
      return ahead;
    };
    Role role;
    // Step 0 staged before the first barrier (with the ones), step 1
    // loaded after it.
    role.start = [&] {
      Value zero = E.idx(0);
      Step first = stepAt(zero);
      Value after = stageKeys(fetchKeys(first), zero, zero, Value());
      if (copied) {
        copyValues(first, zero);
        copyValues(stepAt(next), next);
        t.asyncWait();
      } else {
        stageValues(fetchValues(first), zero);
      }
      stageOnes();
      tile::AsyncProxyFenceOp::create(b, loc);
      return carriesDecay ? SmallVector<Value>{after} : SmallVector<Value>{};
    };
    role.beforeFirst = [&](ValueRange carried) {
      Step second = stepAt(next);
      SmallVector<Value> loaded =
          copied ? SmallVector<Value>{} : fetchValues(second);
      llvm::append_range(loaded, fetchKeys(second));
      llvm::append_range(loaded, carried);
      return loaded;
    };
    role.step = step;
    // (The last steps' copies, zeros past the tokens, land before the end.)
    role.finish = [&](ValueRange) {
      if (copied)
        t.asyncWait();
    };
    role.load = [&](Value i) {
      SmallVector<Value> loaded = fetchValues(stepAt(i));
      llvm::append_range(loaded, fetchKeys(stepAt(i)));
      return loaded;
    };
    role.stageKeys = [&](ValueRange loaded, Value i) {
      stageKeys(loaded.take_back(keyLoads), i, E.idx(0), Value());
    };
    role.stageValues = [&](ValueRange loaded, Value) {
      stageValues(loaded.drop_back(keyLoads), E.idx(0));
    };
    then(role);
  };

  // The consumers in turn (the 256 threads, two warpgroups side by side,
  // each all rows of half the value columns): S of the program's rows in
  // the MMAs' accumulators, Z in f32 partial sums; per step i (tokens t0 ..
  // t0 + K - 1 of one chunk; G the inclusive prefix of the step's log
  // gates, saturated as everywhere):
  //   [S | Z] = exp(G_last) [S | Z] + Phi^T [V | 1],
  //   Phi[t, f] = w_t phi_f(k_t),  w_t = exp(G_last - G_t),
  // Phi^T of step i built while the MMAs of step i - 1 run.
  auto consumerRole = [&](gpu_detail::Tiles &t,
                          llvm::function_ref<void(Role &)> then) {
    // This thread's row of Phi^T (one multiset, found once) and its tokens.
    Value thread = t.range();
    Value localRow = E.div(thread, t.index(4));
    Value row = E.add(t.splat(firstRow), localRow);
    SmallVector<Value> multiset =
        gpu_detail::unrankRows(t, s.p, s.d, E.min(row, t.index(dim - 1)));
    Value scale = gpu_detail::rowScales(t, f32, multiset);
    // Its tokens in pairs (one load of a dim's keys, 4 bytes for bf16 keys
    // and 8 for f32, one 4-byte store of a bf16 pair per half): the four
    // threads of a row take adjacent pairs, 8 tokens a slot, whose rows of
    // staged keys start 8 banks apart (keyRowElements). Per-row values are
    // expanded over a pair's two slots.
    Value pairOf = E.mul(E.rem(thread, t.index(4)), t.index(2));
    Value firstToken =
        E.add(t.expand(pairOf, 2), E.rem(t.range(2), t.index(2, 2)));
    // Phi^T's element (row, token) as K-major core matrices: (row % 8) 8 +
    // (row / 8) PG + (token / 8) 64 + token % 8: a slot's 8 tokens are one
    // core matrix row, a warp's 8 rows one core matrix (no bank conflict).
    auto phiTokenOffset = [](int64_t token) {
      return token / 8 * 64 + token % 8;
    };
    Value phiRow =
        t.expand(E.add(E.mul(E.rem(localRow, t.index(8)), t.index(8)),
                       E.mul(E.div(localRow, t.index(8)), t.index(PG))),
                 2);
    // Phi^T holds the keys' products alone; phi's factor c_f of each row
    // (the multinomial square root) is applied where the state is read or
    // written: the accumulators hold S_f / c_f and Z_f / c_f, which saves a
    // multiplication per Phi^T element. Rows past the state (their multiset
    // clamped to the last row's) are never stored, so they need no mask.
    // (The barrier after: the initial state is read before the loop.)
    auto storeRowFactors = [&] {
      t.store(scale, rowFactors, localRow,
              t.eq(E.rem(thread, t.index(4)), t.index(0)));
    };
    auto rowFactor = [&](Value x) {
      auto type = cast<RankedTensorType>(x.getType());
      return m.loadTransposed(type, rowFactors, E.idx(0), 0);
    };
    // The first pair's keys (dim i of both tokens at 2 i, 2 i + 1 of their
    // row) and Phi^T elements.
    SmallVector<Value> firstKeys;
    Value firstKeyRow = E.mul(E.rem(thread, t.index(4)), t.index(KS2));
    for (Value i : multiset)
      firstKeys.push_back(E.add(firstKeyRow, E.mul(i, t.index(2))));
    Value firstPhi = E.add(phiRow, firstToken);

    RankedTensorType accS = m.accumulator(R, s.e);
    Value sRows = E.mul(E.add(E.mul(bh, E.idx(dim)), firstRow), E.idx(s.e));
    Value zRows = E.add(E.mul(bh, E.idx(dim)), firstRow);
    // S rows of even length start at even offsets in 16-byte aligned buffers
    // (the workspace, the C API's states): column pairs as 8-byte stores.
    bool paired = s.e % 2 == 0;
    // Z in partial sums: each thread's two slots hold its share of its
    // row's Z / c_f (the f32 products, before the split), the initial Z in
    // the row's first slot (thread 4 r, slot 0); a reversed scan over the
    // row's 8 slots puts the row's Z there.
    Value inRows = t.expand(E.ult(localRow, t.splat(rows)), 2);
    Value slotOfRow = firstToken; // 0 .. 7: 2 (thread % 4) + slot
    Value rowStart = t.logicalAnd(inRows, t.eq(slotOfRow, t.index(0, 2)));
    Value scales = t.expand(scale, 2);
    auto rowSums = [&](Value zPart) {
      return tile::ScanOp::create(b, loc, zPart, 8, /*reverse=*/true);
    };

    // Slot `slot`'s rows of the halves: w_f [S_f | Z_f | 0 ...] as bf16 hi
    // and lo: S's columns from the accumulator, then Z and the zeros as the
    // row's 8 slots of partial sums (NO = e + 8).
    assert(ChunkOutputTile::valueColumns(s.e) == s.e + 8 &&
           "Z and 7 zeros after S in a row of the halves");
    // Row f's weight in the halves: scale^p and phi's factor of the row,
    // times the factor the accumulator lacks.
    double phiScale = std::pow(std::abs(s.effectiveScale()), double(s.p));
    auto storeHalves = [&](Value sAcc, Value zPart, Value slot) {
      auto type = cast<RankedTensorType>(sAcc.getType());
      Value c = rowFactor(sAcc);
      Value w = E.mul(E.mul(c, c),
                      tile::SplatOp::create(b, loc, type, E.f32(phiScale)));
      auto [sHi, sLo] = tile::splitBf16(b, loc, E.mul(sAcc, w));
      Value z = E.select(t.eq(slotOfRow, t.index(0, 2)), rowSums(zPart),
                         t.constant(f32, 0.0, 2));
      auto [zHi, zLo] = tile::splitBf16(
          b, loc,
          E.mul(z, E.mul(E.mul(scales, scales), t.constant(f32, phiScale, 2))));
      Value at = E.add(
          E.mul(slot, E.idx(ChunkOutputTile::stateSlotElements(dim, s.e))),
          E.mul(firstRow, E.idx(stateRowStride)));
      // Z's column, e, of the rows.
      Value zAt =
          E.add(E.add(t.splat(E.add(at, E.idx(ChunkOutputTile::stateOffset(
                                            dim, s.e, pieceMajor, 0, s.e))),
                              2),
                      E.mul(t.expand(localRow, 2), t.index(stateRowStride, 2))),
                slotOfRow);
      Value half = E.idx(ChunkOutputTile::stateHalfElements(dim, s.e));
      for (auto [sHalf, zHalf] : {std::pair{sHi, zHi}, std::pair{sLo, zLo}}) {
        m.store(sHalf, chunkHalves, at, stateRowStride, rows, cols, paired,
                statePieces);
        t.store(zHalf, chunkHalves, zAt, inRows, /*contiguous=*/true);
        at = E.add(at, half);
        zAt = E.add(zAt, t.splat(half, 2));
      }
    };
    auto chunkSlot = [&](const Step &st) {
      Value n = E.indexCast(st.n, b.getIndexType());
      return E.add(E.mul(E.add(E.mul(batch, N), n), E.idx(s.h)), h);
    };

    // The MMAs of step i: S += Phi^T V over its K tokens, 16 at a time
    // (Phi^T hi + lo times the values; f16 values as hi + lo, lo Phi times
    // lo v dropped as split_bf16 does), the small products first, from
    // step i's buffers. Each warpgroup multiplies its half of the columns
    // (the tile lowering points its descriptor there).
    // The descriptors of buffer 0 are loop-invariant; buffer 1's are them
    // advanced by the buffer's bytes (TileWarpgroupOps.td): an add per
    // descriptor, where descriptors of a loop-variant offset took about 6
    // index operations each.
    auto advanceBy = [&](Value parity, int64_t elements) -> Value {
      if (split.buffers() == 1)
        return Value();
      return E.indexCast(E.mul(parity, E.idx(2 * elements / 16)),
                         b.getI64Type());
    };
    auto multiply = [&](Value sAcc, Value parity) {
      Value phiAt = advanceBy(parity, phiBuffer),
            valueAt = advanceBy(parity, VE);
      auto advanced = [&](Value descriptor, Value by) -> Value {
        return by ? Value(arith::AddIOp::create(b, loc, descriptor, by))
                  : descriptor;
      };
      tile::WarpgroupFenceOp::create(b, loc);
      for (int64_t k0 = 0; k0 < K; k0 += 16) {
        // A: 16 tokens of Phi^T, the next 8 tokens' core matrices 128 bytes
        // on, the next 8 rows' PG elements on. B: 16 tokens of the values,
        // the next 8 tokens 128 bytes on, the next 8 columns VB elements on
        // (N-major: transpose_b).
        auto phiOf = [&](Value array) -> Value {
          return advanced(
              tile::WarpgroupDescriptorOp::create(
                  b, loc, array, E.idx(phiTokenOffset(k0)), 0, 128, 2 * PG),
              phiAt);
        };
        auto valuesOf = [&](Value array) -> Value {
          return advanced(tile::WarpgroupDescriptorOp::create(
                              b, loc, array, E.idx(8 * k0), 0, 128, 2 * VB),
                          valueAt);
        };
        auto mma = [&](Value a, Value bOperand) {
          sAcc = tile::WarpgroupMmaOp::create(
              b, loc, sAcc.getType(), a, bOperand, sAcc, TypeAttr::get(bf16),
              nullptr, b.getUnitAttr(), b.getBoolAttr(true));
        };
        Value aHi = phiOf(phiHi);
        if (splitV)
          mma(aHi, valuesOf(valuesLo));
        Value vHi = valuesOf(valuesHi);
        mma(phiOf(phiLo), vHi);
        mma(aHi, vHi);
      }
      tile::WarpgroupCommitOp::create(b, loc);
      return sAcc;
    };

    // Phi^T of step i (from its keys and weights) into its buffer: RK
    // tokens per thread, a pair at a time, unrolled: each pair's addresses
    // are the first pair's plus a constant, which the loads and stores take
    // as immediate offsets. Returns Z's partial sums after the step and the
    // step's decay, which the accumulators take once.
    auto buildPhi = [&](Value zPart, Value parity) -> std::pair<Value, Value> {
      Value weightAt = bufferOf(parity, weightBuffer);
      Value stepDecay = stepDecayOf(parity);
      Value keyAt = t.splat(bufferOf(parity, keyBuffer));
      Value phiAt = E.add(firstPhi, t.splat(bufferOf(parity, phiBuffer), 2));
      Value tokenAt = E.add(firstToken, t.splat(weightAt, 2));
      zPart = E.mul(zPart, t.splat(stepDecay, 2));
      for (int64_t slot = 0; slot < RK / 2; ++slot) {
        int64_t ahead = slot * 8;
        SmallVector<Value> at;
        for (Value key : firstKeys)
          at.push_back(
              t.run(E.add(E.add(key, keyAt), t.index(keyRowAt(ahead / 2))), 2));
        Value product = gpu_detail::rowProducts(t, f32, keys, 0, at, nullptr,
                                                /*contiguous=*/true);
        Value wt = t.load(weights, E.add(tokenAt, t.index(ahead, 2)), nullptr,
                          /*contiguous=*/true);
        // Split once here, so that the MMAs read native operands.
        Value phi = E.mul(product, wt);
        zPart = E.add(zPart, phi);
        t.storeBf16(phi, phiHi, phiLo,
                    E.add(phiAt, t.index(phiTokenOffset(ahead), 2)), nullptr,
                    /*contiguous=*/true);
      }
      // Phi^T, to the MMAs' async proxy.
      tile::AsyncProxyFenceOp::create(b, loc);
      return {zPart, stepDecay};
    };

    Role role;
    role.start = [&] {
      storeRowFactors();
      return SmallVector<Value>{};
    };
    // The initial state, and as the state before chunk 0 in the halves.
    role.beforeFirst = [&](ValueRange) {
      Value s0 = m.load(accS, S, sRows, s.e, rows, cols);
      s0 = E.div(s0, rowFactor(s0));
      Value z0 = E.div(
          t.load(Z, E.add(t.splat(zRows, 2), t.expand(localRow, 2)), rowStart),
          scales);
      storeHalves(s0, z0, chunkSlot(stepAt(E.idx(0))));
      return SmallVector<Value>{s0, z0};
    };
    role.build = [&](Value z) { return buildPhi(z, E.idx(0)); };
    role.multiply = [&](Value sAcc, Value decay) {
      return multiply(E.mul(tile::SplatOp::create(b, loc, accS, decay), sAcc),
                      E.idx(0));
    };
    role.halves = [&](Value i, Value sIn, Value z) {
      Step st = stepAt(i);
      E.ifThen(st.opens, [&] { storeHalves(sIn, z, chunkSlot(st)); });
    };
    role.finish = [&](ValueRange state) {
      m.store(E.mul(state[0], rowFactor(state[0])), S, sRows, s.e, rows, cols,
              paired);
      t.store(E.mul(rowSums(state[1]), scales), Z,
              E.add(t.splat(zRows, 2), t.expand(localRow, 2)), rowStart);
      if (s.rotates()) {
        // One thread of the grid writes c.
        emitFinalCount(t, s, counts, c, batch, T, h,
                       t.logicalAnd(E.ult(thread, t.index(1)),
                                    t.splat(E.ult(x, E.idx(1)))));
      }
    };
    then(role);
  };

  // The consumers with a producer of their own: warpgroup g (0 or 1)
  // takes tokens [g K / 2, (g + 1) K / 2) of every step into its own
  // accumulators of all R rows of [S | Z | 0 ...] (mma<warps = [4, 1]>;
  // Z from the ones column after the values), so that together they hold
  // the state, in two parts. Each builds its Phi^T elements where its A
  // fragments hold them (sympow_tile.fragments): per 16 tokens thread
  // 32 w + l holds rows 16 w + l / 4 and 16 w + l / 4 + 8, pairs of
  // adjacent tokens 2 (l % 4) and 2 (l % 4) + 8 on, each pair one word of
  // staged keys per factor; split once into hi + lo bf16 halves and
  // multiplied by the step's values, which the MMAs read from workgroup
  // memory. Phi^T is neither stored nor read. Where a chunk ends,
  // warpgroup 1 hands its part over in `exchange` and starts again from 0;
  // warpgroup 0 adds it after the next barrier and writes the chunk state.
  // After the loop both hand their parts over and warpgroup 1 writes the
  // final state.
  auto registerConsumerRole = [&](gpu_detail::Tiles &t, int64_t g,
                                  llvm::function_ref<void(Role &)> then) {
    gpu_detail::MatrixTiles mw{b, loc, 4, 1};
    int64_t NO = split.valueColumns(s.e);
    assert(NO == ChunkOutputTile::valueColumns(EC) &&
           "[S | Z | 0 ...] as chunk_output reads its rows");
    RankedTensorType accType = mw.accumulator(R, NO),
                     rowType = mw.accumulator(R, 8),
                     aType = mw.operand(0, R, 16, bf16);
    Value thread = t.range();
    Value lane = E.rem(thread, t.index(32));
    Value pairInQuad = E.rem(lane, t.index(4));
    Value rowOfLane = E.add(E.mul(E.div(thread, t.index(32)), t.index(16)),
                            E.div(lane, t.index(4)));
    // Per row half (the fragments' rows r and r + 8): the row's key
    // offsets in a pair row (its multiset's dims), l % 4 pair rows on.
    SmallVector<Value> keyOffsets[2], rowScale(2), localRow(2);
    for (int64_t half : {0, 1}) {
      localRow[half] = E.add(rowOfLane, t.index(8 * half));
      Value row = E.add(t.splat(firstRow), localRow[half]);
      SmallVector<Value> multiset =
          gpu_detail::unrankRows(t, s.p, s.d, E.min(row, t.index(dim - 1)));
      rowScale[half] = gpu_detail::rowScales(t, f32, multiset);
      Value pairRow = E.mul(pairInQuad, t.index(KS2));
      for (Value i : multiset)
        keyOffsets[half].push_back(E.add(pairRow, E.mul(i, t.index(2))));
    }
    // The keys multiply as bf16 pairs, each pair's weights staged as bf16
    // hi + lo too (weightedKeyProducts).
    bool bf16Products = ChunkStatePass::packedKeyProducts(
        s.p, s.dtype == ElementKind::F16, s.rotates());
    assert(bf16Products == split.weightHalves && "weights staged as used");
    auto rowFactor = [&](RankedTensorType type) {
      return mw.loadTransposed(type, rowFactors, E.idx(0), 0);
    };
    Value accZero = mw.splat(accType, 0.0);

    // The A fragments (hi, lo) of the step's tokens 16 kb .. 16 kb + 15
    // from the staged keys and weights of buffer `parity`.
    auto fragmentsOf = [&](Value parity, int64_t kb) {
      Value keyAt = t.splat(bufferOf(parity, keyBuffer));
      // The weights of the two pairs of tokens (8 apart), each shared by
      // both row halves: as staged, f32 or bf16 hi + lo.
      // (A pair's halves one 8-byte load: hi pair, lo pair.)
      auto weightRun = [&](Value array, int64_t buffer, int64_t from,
                           int64_t elements) {
        Value at = E.add(t.splat(bufferOf(parity, buffer)),
                         E.mul(pairInQuad, t.index(elements)));
        return t.load(array, t.run(E.add(at, t.index(from)), elements), nullptr,
                      /*contiguous=*/true);
      };
      Value w[2];
      std::pair<Value, Value> wHalves[2];
      for (int64_t pair : {0, 1}) {
        int64_t token = 16 * kb + 8 * pair;
        if (bf16Products) {
          Value halves = weightRun(weightHalves, halvesBuffer, 2 * token, 4);
          wHalves[pair] = {t.slots(halves, 0, 2), t.slots(halves, 2, 2)};
        } else {
          w[pair] = weightRun(weights, weightBuffer, token, 2);
        }
      }
      SmallVector<Value> his, los;
      for (int64_t q = 0; q < 4; ++q) {
        // Row half q % 2, tokens 8 (q / 2) on.
        int64_t half = q % 2, token = 16 * kb + 8 * (q / 2);
        SmallVector<Value> at;
        for (Value key : keyOffsets[half])
          at.push_back(
              t.run(E.add(E.add(key, keyAt), t.index(keyRowAt(token / 2))), 2));
        std::pair<Value, Value> halves;
        if (bf16Products) {
          auto load = [&](Value from) {
            return t.load(keys, from, nullptr, /*contiguous=*/true);
          };
          halves = weightedKeyProducts(E, load(at[0]), load(at[1]),
                                       wHalves[q / 2]);
        } else {
          Value product = gpu_detail::rowProducts(t, f32, keys, 0, at, nullptr,
                                                  /*contiguous=*/true);
          halves = tile::splitBf16(b, loc, E.mul(product, w[q / 2]));
        }
        his.push_back(halves.first);
        los.push_back(halves.second);
      }
      return std::pair{Value(tile::FragmentsOp::create(b, loc, aType, his)),
                       Value(tile::FragmentsOp::create(b, loc, aType, los))};
    };
    // Step i's MMAs on this warpgroup's tokens: per 16, Phi^T's halves
    // (fenced once built: wgmma reads them from registers) times the
    // values (hi + lo for f16, lo Phi times lo v dropped as split_bf16
    // does), the small products first. Buffer 1's descriptors are buffer
    // 0's advanced by its bytes (TileWarpgroupOps.td).
    auto multiply = [&](Value acc, Value parity, Value valueSlot) {
      Value valueAt = split.buffers() == 1
                          ? Value()
                          : E.indexCast(E.mul(valueSlot, E.idx(2 * VE / 16)),
                                        b.getI64Type());
      assert(K % 32 == 0 && "whole 16-token blocks for each warpgroup");
      int64_t blocks = K / 32; // this warpgroup's 16-token blocks
      for (int64_t kb = g * blocks; kb < (g + 1) * blocks; ++kb) {
        auto [aHi, aLo] = fragmentsOf(parity, kb);
        // B: the values' 16 tokens from 16 kb, the next 8 tokens 128 bytes
        // on, the next 8 columns VB elements on (N-major: transpose_b).
        auto valuesOf = [&](Value array) -> Value {
          Value d = tile::WarpgroupDescriptorOp::create(
              b, loc, array, E.idx(8 * 16 * kb), 0, 128, 2 * VB);
          return valueAt ? Value(arith::AddIOp::create(b, loc, d, valueAt)) : d;
        };
        auto mma = [&](Value a, Value bOperand) {
          acc = tile::WarpgroupMmaOp::create(
              b, loc, accType, a, bOperand, acc, TypeAttr::get(bf16), nullptr,
              b.getUnitAttr(), b.getBoolAttr(true));
        };
        tile::WarpgroupFenceOp::create(b, loc);
        Value vHi = valuesOf(valuesHi);
        if (splitV)
          mma(aHi, valuesOf(valuesLo));
        mma(aLo, vHi);
        mma(aHi, vHi);
        // Each block waited for before the next is built: its fragments
        // then free their registers (8, where the accumulators take 36).
        tile::WarpgroupCommitOp::create(b, loc);
        acc = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{acc})
                  .getResult(0);
      }
      return acc;
    };

    // The halves of a chunk state (warpgroup 0, the parts summed): w_f
    // [S_f | Z_f | 0 ...] as bf16 hi and lo, w_f = scale^p c_f^2 (the
    // accumulators hold the state over c_f).
    double phiScale = std::pow(std::abs(s.effectiveScale()), double(s.p));
    auto storeHalves = [&](Value acc, Value slot) {
      Value c = rowFactor(accType);
      Value w = E.mul(E.mul(c, c), mw.splat(accType, phiScale));
      auto [hi, lo] = tile::splitBf16(b, loc, E.mul(acc, w));
      Value at = E.add(
          E.mul(slot, E.idx(ChunkOutputTile::stateSlotElements(dim, s.e))),
          E.mul(firstRow, E.idx(stateRowStride)));
      // A column block's S columns from its first; the last block's Z block
      // follows them in the row.
      Value columns = E.idx(NO);
      if (CB > 1) {
        at = E.add(at, E.mul(columnBlock, E.idx(ChunkOutputTile::stateOffset(
                                              dim, s.e, pieceMajor, 0, EC))));
        columns = E.select(writesZ, columns, E.idx(EC));
      }
      Value half = E.idx(ChunkOutputTile::stateHalfElements(dim, s.e));
      mw.store(hi, chunkHalves, at, stateRowStride, rows, columns,
               /*paired=*/true, statePieces);
      mw.store(lo, chunkHalves, E.add(at, half), stateRowStride, rows, columns,
               /*paired=*/true, statePieces);
    };
    auto chunkSlot = [&](const Step &st) {
      Value n = E.indexCast(st.n, b.getIndexType());
      return E.add(E.mul(E.add(E.mul(batch, N), n), E.idx(s.h)), h);
    };
    // The exchange's two halves. In order, by chunk parity: warpgroup 1
    // writes chunk n's part at its end into half n % 2 while warpgroup 0
    // may still read chunk n - 1's (chunks of one step start and end in the
    // same barrier interval). Where the decay is once a chunk (chunks of
    // two steps or more, so that a barrier or more lies between warpgroup
    // 0's read of a part and warpgroup 1's next write) the parts go to half
    // 0, and half 1 holds the state before the chunk: written by
    // warpgroup 0 at the chunk's first step of the walk (or before the
    // loop), read by warpgroup 1 at the chunk's last and by warpgroup 0
    // after the loop (its own elements), which then hands its final part
    // over there.
    int64_t exchangeHalf = split.exchangePartElements(s.e);
    auto exchangeOf = [&](Value n) {
      if (split.chunkDecay)
        return E.idx(0);
      return E.mul(E.rem(E.indexCast(n, b.getIndexType()), E.idx(2)),
                   E.idx(exchangeHalf));
    };
    Value chunkStateAt = E.idx(exchangeHalf);
    auto fromChunkState = [&] {
      return mw.load(accType, exchange, chunkStateAt, NO);
    };
    auto fromExchange = [&](Value at) {
      return mw.load(accType, exchange, at, NO);
    };
    // The rows' offsets in S and Z, emitted where used (kept from the
    // region's start to after its loop they spilled on sm_80).
    auto sRows = [&] {
      return E.add(E.mul(E.add(E.mul(bh, E.idx(dim)), firstRow), E.idx(s.e)),
                   firstColumn);
    };
    auto zRows = [&] { return E.add(E.mul(bh, E.idx(dim)), firstRow); };

    Role role;
    // Warpgroup 0: each row's factor, its reciprocal and the initial Z
    // over it, one lane of the row's four (the reciprocals here, where
    // few registers are live: a division per accumulator element took
    // ptxas' slow path calls and spilled).
    role.start = [&] {
      if (g == 0) {
        Value first = t.eq(pairInQuad, t.index(0));
        for (int64_t half : {0, 1}) {
          Value z0 =
              t.load(Z, E.add(t.splat(zRows()), localRow[half]),
                     t.logicalAnd(first, E.ult(localRow[half], t.splat(rows))));
          Value inverse = E.div(t.constant(f32, 1.0), rowScale[half]);
          t.store(rowScale[half], rowFactors, localRow[half], first);
          t.store(inverse, inverseFactors, localRow[half], first);
          t.store(E.mul(z0, inverse), initialZ, localRow[half], first);
        }
      } else {
        E.ifThen(
            E.cmpi(arith::CmpIPredicate::eq,
                   E.rem(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
                         E.idx(128)),
                   E.idx(0)),
            [&] {
              memref::StoreOp::create(b, loc,
                                      E.indexCast(zRows(), b.getI64Type()),
                                      rowsStart, ValueRange{E.idx(0)});
            });
      }
      return SmallVector<Value>{};
    };
    // The initial state [S0 | Z0] over c_f in warpgroup 0 (and as the state
    // before chunk 0 in the halves), 0 in warpgroup 1.
    role.beforeFirst = [&](ValueRange) {
      if (g != 0)
        return split.chunkDecay ? SmallVector<Value>{accZero, E.f32(1.0)}
                                : SmallVector<Value>{accZero};
      Value s0 = mw.load(accType, S, sRows(), s.e, rows, E.idx(EC));
      auto columns = cast<RankedTensorType>(
          tile::withElementType(accType, b.getI32Type()));
      Value isZ = E.cmpi(arith::CmpIPredicate::eq,
                         tile::MatrixRangeOp::create(b, loc, columns, 1),
                         tile::SplatOp::create(b, loc, columns, E.i32(EC)));
      Value z0 = mw.loadTransposed(accType, initialZ, E.idx(0), 0);
      Value inverse = mw.loadTransposed(accType, inverseFactors, E.idx(0), 0);
      Value acc = E.select(isZ, z0, E.mul(s0, inverse));
      // (Kept first: the halves are then the state's last use.)
      if (split.chunkDecay)
        mw.store(acc, exchange, chunkStateAt, NO);
      storeHalves(acc, chunkSlot(stepAt(E.idx(0))));
      if (!split.chunkDecay)
        return SmallVector<Value>{acc};
      return SmallVector<Value>{accZero, E.f32(1.0)};
    };
    // With the decay once a chunk the loop also carries the step's decay
    // to its chunk's end (as staged): after a chunk's last step of the
    // walk, the chunk's decay, which the final state takes.
    role.step = [&](Value i, ValueRange carried) {
      Value acc = carried[0];
      Value parity = parityOf(i);
      Step st = stepAt(i);
      if (g == 0) {
        Value opensLater = arith::AndIOp::create(
            b, loc, st.opens, E.cmpi(arith::CmpIPredicate::ne, i, E.idx(0)));
        // The state before step i's chunk: the other part added (handed
        // over at the end of step i - 1) and written (chunk 0's before the
        // loop); where the decay is once a chunk, kept for warpgroup 1, and
        // this part restarts from 0.
        acc = E.ifElse(
            opensLater, accType,
            [&] {
              Value sum =
                  E.add(acc, fromExchange(exchangeOf(E.add(st.n, E.i32(1)))));
              if (split.chunkDecay)
                mw.store(sum, exchange, chunkStateAt, NO);
              storeHalves(sum, chunkSlot(st));
              return split.chunkDecay ? accZero : sum;
            },
            [&] { return acc; });
      }
      // Where the decay is once a chunk the weights carry the decay to the
      // chunk's end (as the producer staged them); else the accumulators
      // take the step's decay once.
      Value decayed, valueSlot = valueSlotOf(i);
      if (split.chunkDecay) {
        acc = multiply(acc, parity, valueSlot);
        decayed = chunkEndDecayOf(parity);
      } else {
        acc = multiply(
            E.mul(tile::SplatOp::create(b, loc, accType, stepDecayOf(parity)),
                  acc),
            parity, valueSlot);
      }
      if (g == 1) {
        // Hand the part over where a chunk ends before the last (the
        // last part after the loop), with the state before the chunk
        // decayed by the chunk's decay where the decay is once a chunk.
        Value i1 = E.add(i, next);
        Value ends =
            arith::AndIOp::create(b, loc, stepAt(i1).opens,
                                  E.cmpi(arith::CmpIPredicate::ult, i1, steps));
        acc = E.ifElse(
            ends, accType,
            [&] {
              Value part = acc;
              if (split.chunkDecay)
                part = E.add(
                    part, E.mul(tile::SplatOp::create(b, loc, accType, decayed),
                                fromChunkState()));
              mw.store(part, exchange, exchangeOf(st.n), NO);
              return accZero;
            },
            [&] { return acc; });
      }
      if (!split.chunkDecay)
        return SmallVector<Value>{acc};
      return SmallVector<Value>{acc, decayed};
    };
    // The final state: both warpgroups hand their parts over, into the
    // exchange's two halves (in order N % 2 is free: warpgroup 0 read chunk
    // N - 2's part from it a chunk ago; with no tokens both are written
    // too; warpgroup 0's, with the decay once a chunk, its part and the
    // state before the last chunk decayed, in half 1), and
    // warpgroup 1, where few registers are live, sums them: times c_f, S's
    // columns, then Z as its row's sum over the last 8 columns.
    role.last = [&](ValueRange state) {
      Value n = E.indexCast(N, i32);
      Value part = state[0];
      if (g == 0 && split.chunkDecay)
        part =
            E.add(part, E.mul(tile::SplatOp::create(b, loc, accType, state[1]),
                              fromChunkState()));
      Value at = exchangeOf(g == 0 ? n : E.add(n, E.i32(1)));
      if (g == 0 && split.chunkDecay)
        at = chunkStateAt;
      mw.store(part, exchange, at, NO);
    };
    role.finish = [&](ValueRange) {
      if (g != 1)
        return;
      // 8 columns at a time (both parts of the whole tile at once spilled).
      RankedTensorType pieceType = mw.accumulator(R, 8);
      Value factor = rowFactor(pieceType);
      // The rows' start, left in workgroup memory by the region's first
      // thread (a 64-bit value LLVM kept live through the loop from the
      // program's start took a register the loop lacked on sm_80).
      Value zAt = E.indexCast(
          memref::LoadOp::create(b, loc, rowsStart, ValueRange{E.idx(0)}),
          b.getIndexType());
      for (int64_t col = 0; col < NO; col += 8) {
        auto part = [&](int64_t half) {
          return mw.load(pieceType, exchange, E.idx(half * exchangeHalf + col),
                         NO);
        };
        Value piece = E.mul(E.add(part(0), part(1)), factor);
        if (col < EC)
          mw.store(
              piece, S,
              E.add(E.add(E.mul(zAt, E.idx(s.e)), firstColumn), E.idx(col)),
              s.e, rows, E.idx(std::min<int64_t>(8, EC - col)), s.e % 2 == 0);
        else {
          // (Z: the last column block's alone.)
          auto storeZ = [&] {
            mw.store(mw.denominators(piece, 0, rowType), Z, zAt, 1, rows,
                     E.idx(1));
          };
          if (CB == 1)
            storeZ();
          else
            E.ifThen(writesZ, storeZ);
        }
      }
      if (s.rotates()) {
        // One thread of the grid writes c.
        emitFinalCount(t, s, counts, c, batch, T, h,
                       t.logicalAnd(E.ult(thread, t.index(1)),
                                    t.splat(E.ult(x, E.idx(1)))));
      }
    };
    then(role);
  };

  // A role's code in the order the regions' barriers meet: its start, a
  // barrier (step 0 staged, the row factors and initial Z), the initial
  // state, one barrier a step, and one after the loop (the hand-overs of
  // the final state's parts).
  auto runRegion = [&](Role &role) {
    SmallVector<Value> carried = role.start();
    gpu::BarrierOp::create(b, loc);
    carried = role.beforeFirst(carried);
    SmallVector<Value> state =
        E.forLoop(E.idx(0), steps, next, carried, [&](Value i, ValueRange acc) {
          gpu::BarrierOp::create(b, loc);
          return role.step(i, acc);
        });
    if (role.last)
      role.last(state);
    gpu::BarrierOp::create(b, loc);
    role.finish(state);
  };
  // One set of threads, one buffer each, in turn, between three barriers a
  // step: step i's keys and weights staged, the MMAs of step i - 1 waited
  // for, its values staged, the state before a chunk, step i + 1's loads
  // issued, Phi^T built, the MMAs of step i issued (running through the
  // next step's staging).
  auto runInTurn = [&](Role &p, Role &c) {
    c.start();
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> initial = c.beforeFirst({});
    SmallVector<Value> init = {initial[0], initial[1]};
    llvm::append_range(init, p.load(E.idx(0)));
    SmallVector<Value> state =
        E.forLoop(E.idx(0), steps, next, init, [&](Value i, ValueRange acc) {
          ValueRange loaded = acc.drop_front(2);
          gpu::BarrierOp::create(b, loc); // the previous Phi^T's builders
          p.stageKeys(loaded, i);
          Value sIn =
              tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{acc[0]})
                  .getResult(0);
          gpu::BarrierOp::create(b, loc);
          p.stageValues(loaded, i);
          // (Step 0's was written before the loop.)
          E.ifThen(E.cmpi(arith::CmpIPredicate::ne, i, E.idx(0)),
                   [&] { c.halves(i, sIn, acc[1]); });
          SmallVector<Value> ahead = p.load(E.add(i, next));
          auto [zPart, stepDecay] = c.build(acc[1]);
          gpu::BarrierOp::create(b, loc);
          SmallVector<Value> out = {c.multiply(sIn, stepDecay), zPart};
          llvm::append_range(out, ahead);
          return out;
        });
    Value sLast = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{state[0]})
                      .getResult(0);
    c.finish({sLast, state[1]});
  };
  if (split.specialized) {
    // Warpgroup 2 the producer, 0 and 1 the consumers.
    auto region = [&](int64_t first, llvm::function_ref<void()> body) {
      auto op = tile::WarpgroupsOp::create(b, loc, first, 1);
      OpBuilder::InsertionGuard inside(b);
      b.setInsertionPointToStart(&op.getBody().front());
      body();
    };
    region(2, [&] {
      gpu_detail::Tiles t{b, loc, E, PP};
      producerRole(t, [&](Role &p) { runRegion(p); });
    });
    for (int64_t g : {0, 1})
      region(g, [&] {
        gpu_detail::Tiles t{b, loc, E, 128};
        registerConsumerRole(t, g, [&](Role &c) { runRegion(c); });
      });
  } else {
    // Every thread in turn.
    gpu_detail::Tiles t{b, loc, E, PC};
    producerRole(t, [&](Role &p) {
      consumerRole(t, [&](Role &c) { runInTurn(p, c); });
    });
  }
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
