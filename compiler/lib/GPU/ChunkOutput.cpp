//===- ChunkOutput.cpp - chunk_output as a tile kernel --------------------===//
//
// y of the chunked formulation for 16-bit inputs (docs/TileIR.md,
// "chunk_output"; the split in runtime/support's ChunkOutputTile.h).
// Program (x, query head, sequence) owns query rows [t0, t0 + R), all in
// chunk n (a chunk shorter than R: its rows alone, the rest masked), in
// mma<warps = [R / 16, 1]> accumulators of [num | den] (the value columns, then
// the denominator at column e); R = 128 is two warpgroups, which share
// each staged state step and key step:
//  1. phi(Q) [S_n | Z_n], the state before the chunk, F rows per step:
//     phi(Q) built in workgroup memory as bf16 hi + lo, the state rows
//     staged as hi + lo, three native dots per k step. For p = 2
//     (`factorsState`) no phi(Q): sum_a q_a (Q [S_a | Z_a]), q itself as
//     the dots' A operand (exact for unrotated bf16), a's weighted state
//     rows as B (hi + lo), each row's q_a applied to the f32 result. Its
//     steps copy their rows by cp.async (sympow_tile.async_copy) into one
//     of two buffers while the step before computes (the H100 waited on
//     those loads in a quarter of its stall samples with one buffer);
//  2. the causal part as FlashAttention-2 over the chunk's keys up to the
//     diagonal, K per step: log weights p log|q.k| + G_i - G_j in base 2
//     (the gates times log2 e, so that log2 and 2^x are the hardware's
//     MUFU.LG2 and MUFU.EX2 without a change of base), a running row
//     maximum m, P = 2^(lw - m) in bf16 through `to_operand` into
//     P [V | 1]. The step's gates are summed after each key by a scan of
//     shuffles (sigma_j). Steps before the program's first row (most of
//     them in long chunks) need no log or exp per score: 2^lw =
//     (q.k)^p 2^sigma_j 2^rowPart_i, so P = u_ij 2^(rowPart_i - m) with
//     u = (q.k)^p 2^sigma_j and m from the row's largest u. The state's
//     part starts the running maximum at G_i + log|den_S| (the accumulator
//     divided by |den_S|), which is the combination at
//     M = max(m, G_i + log|den_S|) of the f32 kernel (ChunkOutputF32.cpp) done
//     online. A warp whose rows all lie before a step's first key skips
//     the step's dots and weights. In programs of two warpgroups (and
//     rotated bf16 ones of one) the steps are the attention kernel's
//     (KeySteps.h): keys and [V | 1] staged into canonical layouts, both
//     products warpgroup MMAs, a warpgroup skipping the steps after its
//     rows;
//  3. y = num / den.
// The scale of q is folded out of the dots (p log|scale| on the log
// weights, scale^p on phi), so unrotated bf16 q and k are exact operands.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "KeySteps.h"
#include "SymmetricPowerTiles.h"
#include "TileKernels.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/ChunkOutputTile.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;

namespace sympow::chunked {

LogicalResult buildOutputTile(OpBuilder &b, gpu::GPUModuleOp module,
                              const AttentionKernelSpec &s, int64_t C,
                              int64_t dim, const ChunkOutputTile &split) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  int64_t inputBytes = elem.getIntOrFloatBitWidth() / 8;
  int64_t R = split.rowsPerProgram, K = split.keysPerStep,
          F = split.stateRowsPerStep, P = split.threads();
  int64_t DK = ChunkOutputTile::keyColumns(s.d),
          QS = ChunkOutputTile::keyStride(s.d);
  // The value columns this program takes (all, or its block of them), and
  // [S | Z]'s as the chunk state holds them.
  int64_t EV = split.programColumns(s.e);
  int64_t NV = ChunkOutputTile::valueColumns(EV),
          VS = ChunkOutputTile::valueStride(EV), PS = split.phiStride(),
          stateColumns = ChunkOutputTile::valueColumns(s.e);
  bool splitQK = split.splitScores, splitV = split.splitValues;
  using gpu_detail::workgroupMemRef;
  int64_t operands = split.operandElements(s.d),
          rowArrays = split.rowElements(s.e);
  // q's hi half; phi(Q) or a step's keys (hi); a step's state rows or
  // values (hi, lo); G of the query rows; the query rows' gate scan; the
  // key step's gate sums; then the lo halves of the operands and of q
  // where the split has them.
  SmallVector<Type> workgroup = {
      workgroupMemRef({R * QS}, bf16),
      workgroupMemRef({operands}, bf16),
      workgroupMemRef({rowArrays}, bf16),
      workgroupMemRef({rowArrays}, bf16),
      workgroupMemRef({R}, f32),
      workgroupMemRef({2 * R}, f32),
      workgroupMemRef({ChunkOutputTile::keyGateElements(K)}, f32)};
  if (split.operandLo())
    workgroup.push_back(workgroupMemRef({operands}, bf16));
  if (splitQK)
    workgroup.push_back(workgroupMemRef({R * QS}, bf16));
  // The state buffers' mbarriers, where bulk copies fill them, and the
  // copies' source start, y's rows' start, the program's x and sequence
  // (KeptStart, below).
  if (split.bulkState(s.e)) {
    workgroup.push_back(workgroupMemRef({2}, b.getI64Type()));
    workgroup.push_back(workgroupMemRef({4}, b.getI64Type()));
  }
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::ChunkOutput, P,
      {tile::KernelAttr::perTokens(split.rowSpan), s.hq * split.columnBlocks,
       tile::KernelAttr::kBatch},
      workgroup, args, C);
  tile::setMinBlocksPerSM(fn, split.minProgramsPerSM(s.e));
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  gpu_detail::MatrixTiles m{b, loc, split.warps(), 1};
  using runtime::KernelArg;
  // Rotating schedules read the keys chunk_keys rotated (f32).
  Value q = args.get(fn, KernelArg::Q),
        k = args.get(fn, s.rotates() ? KernelArg::RotatedK : KernelArg::K),
        v = args.get(fn, KernelArg::V);
  Value logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma);
  Value counts = args.get(fn, KernelArg::Counts);
  Value chunkHalves = args.get(fn, KernelArg::ChunkStateHalves),
        y = args.get(fn, KernelArg::Y);
  auto wg = fn.getWorkgroupAttributions();
  Value qHi = wg[0], operandHi = wg[1], rowsHi = wg[2], rowsLo = wg[3],
        queryGates = wg[4], queryScan = wg[5], keyGates = wg[6];
  unsigned next = 7;
  Value operandLo = split.operandLo() ? Value(wg[next++]) : Value();
  Value qLo = splitQK ? Value(wg[next++]) : Value();
  // With bulk copies: the state buffers' mbarriers, and offsets kept in
  // workgroup memory (written once, read where used: computed early, LLVM
  // kept them live in 64-bit registers through the loops, which ptxas
  // lacked): the chunk state's slot (the copies' source) and y's rows.
  Value barriers = split.bulkState(s.e) ? Value(wg[next]) : Value(),
        keptStarts = split.bulkState(s.e) ? Value(wg[next + 1]) : Value();
  // Also the program's x and sequence, reread after the state part: kept
  // in registers through it, they spilled in steps of 64 state rows.
  enum KeptStart : int64_t {
    kCopySource = 0,
    kOutputRows = 1,
    kProgramX = 2,
    kSequence = 3
  };
  auto keptStart = [&](KeptStart which) {
    return E.indexCast(memref::LoadOp::create(b, loc, keptStarts,
                                              ValueRange{E.idx(which)}),
                       b.getIndexType());
  };

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value x = ids.x, batch = ids.z;
  // Along y: the query head, then the block of value columns.
  Value hq = E.div(ids.y, E.idx(split.columnBlocks)),
        firstColumn = E.mul(E.rem(ids.y, E.idx(split.columnBlocks)), E.idx(EV));
  Value T = args.seqLen(b, fn);
  Value h = E.div(hq, E.idx(s.hq / s.h));
  // Rows [t0, t0 + rows) of R: a chunk shorter than R leaves the rest
  // masked, as T does.
  Value t0, n, chunkStart, rows, before;
  auto placeRows = [&] {
    t0 = E.mul(x, E.idx(split.rowSpan));
    n = E.div(t0, E.idx(C));
    chunkStart = E.mul(n, E.idx(C));
    rows = E.min(E.idx(split.rowSpan), E.sub(T, t0));
    before = E.sub(t0, chunkStart);
  };
  placeRows();
  Value N = E.div(E.add(T, E.idx(C - 1)), E.idx(C));
  Value thread = t.range();
  auto tokenBase = [&](Value first, int64_t heads, Value head, int64_t width) {
    return gpu_detail::tokenOffset(E, batch, T, first, heads, head, width);
  };
  // y's rows of this program: its first element.
  auto yStart = [&] {
    return E.add(tokenBase(t0, s.hq, hq, s.e), firstColumn);
  };
  double scale = std::abs(s.effectiveScale());
  double p = double(s.p);

  Value gamma = logGamma ? E.load(logGamma, {h}) : Value();
  // The log gates in base 2 (times log2 e), as every log weight here: the
  // weights are then 2^(lw - m), the hardware's own exp.
  auto gatesOf = [&](Value first, Value count, int64_t perThread = 1) {
    Value g =
        tokenGates(t, s, logG, gamma, batch, T, h, first, count, perThread);
    return E.mul(g, t.constant(f32, M_LOG2E, perThread));
  };

  // G_i of the query rows from the chunk's start: the gates before t0 as
  // block sums, then the rows' own prefix.
  Value start =
      E.forLoop(E.idx(0), before, E.idx(P), {t.constant(f32, 0.0)},
                [&](Value i, ValueRange acc) {
                  Value g = gatesOf(E.add(chunkStart, i), E.sub(before, i));
                  return SmallVector<Value>{E.add(acc[0], t.columnSum(g, 1))};
                })[0];
  int64_t queryHalf =
      gpu_detail::inclusiveScan(t, queryScan, R, gatesOf(t0, rows));
  {
    Value isRow = E.ult(thread, t.index(R));
    Value prefix = t.load(queryScan, E.add(thread, t.index(queryHalf)), isRow);
    t.store(E.add(start, prefix), queryGates, thread, isRow);
  }

  // body(item) for the runs of L elements that cover 0 .. total - 1, P L
  // per pass, index math per element: only q's staging, whose rotation
  // needs each element's partner dim. A loop, so that no pass's index math
  // is loop-invariant (hoisted, it would hold registers across the kernel).
  auto forRuns = [&](int64_t total, int64_t L,
                     llvm::function_ref<void(Value item)> body) {
    E.forLoop(E.idx(0), E.idx(total), E.idx(P * L), {},
              [&](Value from, ValueRange) {
                body(E.add(t.range(L), t.splat(from, L)));
                return SmallVector<Value>{};
              });
  };

  // body(start) for the runs of L elements that cover 0 .. total - 1, P L
  // per pass, with each thread's run start as one element: index math on
  // it is done once per run. spread() gives a run's slots one value,
  // runOffsets() its L adjacent offsets from the start.
  auto forRunStarts = [&](int64_t total, int64_t L,
                          llvm::function_ref<void(Value start)> body) {
    E.forLoop(E.idx(0), E.idx(total), E.idx(P * L), {},
              [&](Value from, ValueRange) {
                body(E.add(E.mul(thread, t.index(L)), t.splat(from)));
                return SmallVector<Value>{};
              });
  };
  auto spread = [&](Value x, int64_t L) { return L == 1 ? x : t.expand(x, L); };
  auto runOffsets = [&](Value start, int64_t L) {
    if (L == 1)
      return start;
    return E.add(spread(start, L), E.rem(t.range(L), t.index(L, L)));
  };
  // Stages columns [from, from + width) of `tileRows` rows as bf16 halves
  // [row][stride] from values(j, c, inTile, L), in runs of adjacent columns
  // (loads of `sourceBytes` elements). j, c and inTile are one element per
  // thread (its run's row, first column and whether the run is inside the
  // tile); values returns the run's L values as f32.
  using RunValues =
      llvm::function_ref<Value(Value j, Value c, Value inTile, int64_t L)>;
  auto stageColumns = [&](int64_t tileRows, int64_t from, int64_t width,
                          int64_t stride, int64_t sourceBytes, Value hi,
                          Value lo, RunValues values) {
    int64_t L = vectorRun(width, sourceBytes);
    forRunStarts(tileRows * width, L, [&](Value start) {
      Value j = E.div(start, t.index(width));
      Value c = E.add(E.rem(start, t.index(width)), t.index(from));
      Value inTile = E.ult(start, t.index(tileRows * width));
      t.storeBf16(values(j, c, inTile, L), hi, lo,
                  runOffsets(E.add(E.mul(j, t.index(stride)), c), L),
                  spread(inTile, L), L > 1);
    });
  };
  // Columns [0, width) from body, then [width, padded) from tail.
  auto stageRowRuns = [&](int64_t tileRows, int64_t width, int64_t padded,
                          int64_t stride, int64_t sourceBytes, Value hi,
                          Value lo, RunValues body, RunValues tail) {
    stageColumns(tileRows, 0, width, stride, sourceBytes, hi, lo, body);
    if (padded > width)
      stageColumns(tileRows, width, padded - width, stride, sourceBytes, hi, lo,
                   tail);
  };
  // The slots of a run that fall on column EV (the [S | Z] and [V | 1]
  // extra column); c is the run's first column.
  auto atColumnE = [&](Value c, int64_t L) {
    return t.eq(runOffsets(c, L), t.index(EV, L));
  };
  // Where a staged row's run from column c (a multiple of 8) is in a row of
  // the chunk state: the block's columns, then Z and its zeros from e.
  auto stateColumn = [&](Value c) -> Value {
    if (split.columnBlocks == 1)
      return c;
    return E.select(E.ult(c, t.index(EV)), E.add(c, t.splat(firstColumn)),
                    E.add(c, t.index(s.e - EV)));
  };
  // A run's L zeros.
  auto zeros = [&](Value, Value, Value, int64_t L) {
    return t.constant(f32, 0.0, L);
  };

  // Stages rows first .. first + count - 1 of a [B, T, heads, d] tensor as
  // bf16 halves [row][QS] (hi, and lo where `lo`), zero past count and d;
  // `rotateBy`: each row rotated by its count first.
  auto stageKeys = [&](Value src, int64_t heads, Value head, Value first,
                       Value count, int64_t tileRows, Value hi, Value lo,
                       bool rotateBy) {
    if (!rotateBy) {
      Value rowsStart = tokenBase(first, heads, head, s.d);
      stageRowRuns(
          tileRows, s.d, DK, QS, inputBytes, hi, lo,
          [&](Value j, Value c, Value inTile, int64_t L) {
            Value live = t.logicalAnd(inTile, E.ult(j, t.splat(count)));
            Value at = E.add(
                E.add(t.splat(rowsStart), E.mul(j, t.index(heads * s.d))), c);
            return t.convert(
                t.load(src, runOffsets(at, L), spread(live, L), L > 1), f32);
          },
          zeros);
      return;
    }
    int64_t L = vectorRun(s.d, inputBytes);
    forRuns(tileRows * DK, L, [&](Value item) {
      Value j = E.div(item, t.index(DK, L)), dd = E.rem(item, t.index(DK, L));
      Value inTile = E.ult(item, t.index(tileRows * DK, L));
      Value live =
          t.logicalAnd(t.logicalAnd(inTile, E.ult(j, t.splat(count, L))),
                       E.ult(dd, t.index(s.d, L)));
      Value row = E.add(t.splat(tokenBase(first, heads, head, s.d), L),
                        E.mul(j, t.index(heads * s.d, L)));
      Value kx = t.convert(t.load(src, E.add(row, dd), live, L > 1), f32);
      if (rotateBy) {
        Value partner = gpu_detail::partnerDim(t, s, dd);
        Value kp = t.convert(t.load(src, E.add(row, partner), live), f32);
        Value turns = t.load(counts,
                             E.add(t.splat(tokenBase(first, s.h, h, 1), L),
                                   E.mul(j, t.index(s.h, L))),
                             live);
        kx = gpu_detail::rotate(t, s, dd, kx, kp, turns);
      }
      t.storeBf16(kx, hi, lo, E.add(E.mul(j, t.index(QS, L)), dd), inTile,
                  L > 1);
    });
  };
  stageKeys(q, s.hq, hq, t0, rows, R, qHi, qLo, s.rotates());

  RankedTensorType accType = m.accumulator(R, NV),
                   rowType = m.accumulator(R, 8);
  auto repeat = [&](Value x, RankedTensorType type) {
    return m.repeat(x, type);
  };
  auto splatTo = [&](RankedTensorType type, double value) {
    return m.splat(type, value);
  };

  // 1. phi(Q) [S_n | Z_n]: F state rows per step.
  Value slot = E.add(E.mul(E.add(E.mul(batch, N), n), E.idx(s.h)), h);
  // Stages `tileRows` rows of the chunk state's halves (chunk_state_pass
  // wrote them weighted, with Z in column e: ChunkOutputTile::
  // stateSlotElements) at rows [0, tileRows) of rowsHi and rowsLo: row j is
  // state row rowsStart + j where from <= j < to (no `from`: 0), zero
  // elsewhere. Whole 16-byte runs, copied: the loads need no mask (rows
  // past the state read its last one, then zeroed), and their offsets are
  // runs (`run`: one address each). (The other stagings keep vectors of
  // offsets: as runs too, ptxas spilled the rotated kernel on sm_80.)
  Value slotStart =
      E.mul(slot, E.idx(ChunkOutputTile::stateSlotElements(dim, s.e)));
  // A half's rows lie one after the other, or (bulk copies) its 8-column
  // pieces, each its rows' runs in order (ChunkOutputTile::stateOffset).
  int64_t statePiece = ChunkOutputTile::statePieceElements(dim);
  bool bulk = split.bulkState(s.e);
  auto stageState = [&](Value rowsStart, int64_t tileRows, Value from,
                        Value to) {
    constexpr int64_t L = 8;
    std::array<Value, 2> halves = {rowsHi, rowsLo};
    for (int64_t half : {0, 1}) {
      Value staged = halves[half];
      Value halfStart =
          E.add(slotStart,
                E.idx(half * ChunkOutputTile::stateHalfElements(dim, s.e)));
      forRunStarts(tileRows * NV, L, [&](Value start) {
        Value j = E.div(start, t.index(NV)), c = E.rem(start, t.index(NV));
        Value inTile = E.ult(start, t.index(tileRows * NV));
        Value row = E.min(E.add(t.splat(rowsStart), j), t.index(dim - 1));
        Value at =
            E.add(E.add(t.splat(halfStart), E.mul(row, t.index(stateColumns))),
                  stateColumn(c));
        Value x = t.load(chunkHalves, t.run(at, L), nullptr, true);
        Value live = E.ult(j, t.splat(to));
        if (from)
          live = t.logicalAnd(
              live, E.cmpi(arith::CmpIPredicate::uge, j, t.splat(from)));
        x = E.select(spread(live, L), x, t.constant(bf16, 0.0, L));
        t.store(x, staged, t.run(E.add(E.mul(j, t.index(VS)), c), L),
                spread(inTile, L), true);
      });
    }
  };

  Value noState = splatTo(accType, 0.0);
  Value acc;
  if (split.factorsState) {
    // p = 2: phi(q) [S | Z] = sum_a q_a sum_{b >= a} w_ab q_b [S | Z]_(a, b)
    // with w_aa = scale^2 and w_ab = sqrt(2) scale^2 (the weights the
    // staged state rows carry): per a, the dot of Q (as staged, exact) with
    // a's state rows placed at rows b (zero below a, from a's 16-row block
    // on), then times each row's q_a, read from column a of q as staged
    // (a per-row `matrix_load`: no copy of q transposed, which took d R
    // elements of the operand arrays).
    gpu::BarrierOp::create(b, loc); // q staged
    auto factorType =
        RankedTensorType::get(rowType.getShape(), bf16, rowType.getEncoding());
    auto factorOf = [&](Value array, Value a) {
      return t.convert(m.loadTransposed(factorType, array, a, 0, QS), f32);
    };
    // Steps of F rows: a's rows from its 16-row block r0 = a0 on, F at a
    // time. With two buffers a step waits for its own copies, then (after
    // the barrier that also ends the step before's dots) issues the next
    // step's copies into the other buffer and computes while they fly;
    // with one (where two do not fit) it stages its rows between two
    // barriers.
    bool twoBuffers = split.stateBuffers == 2;
    bool warpgroup = split.warpgroupState(s.e);
    if (warpgroup) {
      // Matrix descriptors start on 16 bytes (TileWarpgroupOps.td).
      for (unsigned i : {2u, 3u})
        fn.setWorkgroupAttributionAttr(i, "llvm.align",
                                       b.getI64IntegerAttr(16));
    }
    // Head dims are multiples of 16, so [S | Z]'s rows of e + 8 columns
    // are an odd number of 16-byte runs: ldmatrix takes them unpadded.
    assert(VS == NV && "staged state rows are as dense as the chunk state's");
    // The state row of (a, b) is a (2 d - 1 - a) / 2 + b.
    auto rowOfB0 = [&](Value a) {
      return E.div(E.mul(a, E.sub(E.idx(2 * s.d - 1), a)), E.idx(2));
    };
    // A step's F rows are one block of F NV elements in the chunk state
    // (per half): pass j of a thread copies the 16-byte run at
    // at0 + j P L of it, at0 = thread L. Where each lands in a buffer (for
    // the warpgroup MMA, N-major core matrices: the run of row k, columns
    // 8 c .. 8 c + 7 goes to (c FP + k) 8) is the same for every step, so it
    // is computed once here; a step adds its buffer's offset, a constant.
    // Runs in the state's order, so that a warp reads 512 adjacent bytes,
    // and pieces FP slots apart (statePieceRows), so that its stores take
    // distinct 16-byte slots. (One start per thread, the passes' constant
    // shifts added to the step's scalars: a start per pass held registers
    // ptxas lacked.)
    constexpr int64_t L = 8;
    int64_t FP = split.statePieceRows(s.e),
            stateBuffer = split.stateBufferElements(s.e);
    struct StepRun {
      int64_t shift;      // j P L
      Value dest, inStep; // inStep null: every thread's run is inside
      // With column blocks: the run's offset from the step's first state
      // row (rows of the chunk state are wider than the staged ones).
      Value source;
    };
    Type i32 = b.getI32Type();
    auto i32Splat = [&](Value x) { return t.splat(E.indexCast(x, i32)); };
    Value at0 = E.mul(thread, t.index(L));
    Value at0i32 = E.indexCast(at0, t.type(i32));
    SmallVector<StepRun> stepRuns;
    if (twoBuffers && !bulk) {
      int64_t runs = F * NV / L;
      for (int64_t from = 0; from < runs; from += P) {
        StepRun run;
        run.shift = from * L;
        if (from + P > runs)
          run.inStep = E.ult(at0, t.index(F * NV - run.shift));
        // The run's row k of the step and 8-column piece c.
        Value k, c;
        if (warpgroup || split.columnBlocks > 1) {
          Value r = E.add(thread, t.index(from));
          k = E.div(r, t.index(NV / L));
          c = E.rem(r, t.index(NV / L));
        }
        run.dest = warpgroup
                       ? E.mul(E.add(E.mul(c, t.index(FP)), k), t.index(L))
                       : E.add(at0, t.index(run.shift));
        if (split.columnBlocks > 1)
          run.source = E.add(E.mul(k, t.index(stateColumns)),
                             stateColumn(E.mul(c, t.index(L))));
        stepRuns.push_back(run);
      }
    }
    // The copies of the step (a, r0) into the buffer at `buffer` (a
    // constant offset): F rows j, zeros where r0 + j is below a (only in
    // a's first step, `firstOfA`) or past the last dim (only where r0 + F
    // passes d: `end`, the step's r0 + F). Those read nothing; their
    // source is the step's first run.
    auto copyStep = [&](Value a, Value r0, int64_t buffer, bool firstOfA,
                        int64_t end) {
      Value rowsStart = E.add(rowOfB0(a), r0);
      bool pastD = end > s.d;
      // Live runs: first <= at < limit, as at - first < limit - first.
      Value first = firstOfA ? E.mul(E.sub(a, r0), E.idx(NV)) : E.idx(0);
      Value limit = E.mul(E.sub(E.idx(s.d), r0), E.idx(NV));
      std::array<Value, 2> halves = {rowsHi, rowsLo};
      bool blocks = split.columnBlocks > 1;
      for (const StepRun &run : stepRuns) {
        // The source from the pass's first run on: at0, or (masked) -shift;
        // with column blocks from the step's first row: the run's source,
        // or (masked) that row's first run.
        Value live, offset = blocks ? run.source : at0;
        if (firstOfA || pastD) {
          Value shift = E.idx(run.shift);
          live = E.ult(E.sub(at0i32, i32Splat(E.sub(first, shift))),
                       i32Splat(E.sub(limit, first)));
          offset = blocks ? E.select(live, run.source, t.index(0))
                          : E.indexCast(E.select(live, at0i32,
                                                 t.splat(E.i32(-run.shift))),
                                        t.type(b.getIndexType()));
        }
        for (int64_t half : {0, 1}) {
          Value from = E.add(
              slotStart,
              E.add(E.idx(half * ChunkOutputTile::stateHalfElements(dim, s.e) +
                          (blocks ? 0 : run.shift)),
                    E.mul(rowsStart, E.idx(blocks ? stateColumns : NV))));
          t.asyncCopy(chunkHalves, E.add(t.splat(from), offset), halves[half],
                      E.add(run.dest, t.index(buffer)), L, run.inStep, live);
        }
      }
    };
    // With bulk copies the buffers hold a step's rows as N-major core
    // matrices, each 8-column piece's rows one run FP rows apart, as the
    // state holds them (in pieces): the step (a, r0) of `rows` rows into buffer
    // `buffer` is one bulk copy per piece and half, from one thread (an
    // elected lane of warp 0), which then arrives on the buffer's mbarrier
    // with their bytes. In a's first step past its block's first a the
    // copies skip its `skip` = a - a0 rows below a, and those rows of the
    // buffer are zeros (zeroRows), so that q's columns there need no mask
    // in the dots' A (a compare and a select per fragment element and a,
    // in every thread). Rows past the state do not occur (r0 + rows <= d).
    // The step's buffer and skip (`place`, null skip: none) are computed
    // inside the elected region, by the one thread that uses them.
    int64_t blockPieces = EV / L, firstZ = s.e / L;
    using StepPlace = llvm::function_ref<std::pair<Value, Value>()>;
    auto bulkStep = [&](Value a, int64_t r0, int64_t rows, StepPlace place) {
      auto elected = tile::ElectedOp::create(b, loc);
      OpBuilder::InsertionGuard inside(b);
      b.setInsertionPointToStart(&elected.getBody().front());
      auto [buffer, skip] = place();
      // The slot's start is read from workgroup memory, where the first
      // elected region left it: as a loop invariant, LLVM hoisted it plus
      // each kind of step's constant rows and half out of the loop, a
      // 64-bit register each (bulk copies take no immediate offset), which
      // took the registers of a fourth program per SM. The offsets within
      // the slot in i32 (a slot holds fewer than 2^31 elements).
      Value slotStart = keptStart(kCopySource);
      Value a32 = E.indexCast(a, i32);
      Value rowStart = E.mul(
          E.add(E.div(E.mul(a32, E.sub(E.i32(2 * s.d - 1), a32)), E.i32(2)),
                skip ? E.add(E.indexCast(skip, i32), E.i32(r0)) : E.i32(r0)),
          E.i32(L));
      Value copied = skip ? E.sub(E.idx(rows), skip) : E.idx(rows);
      Value bar = buffer, bytes = E.mul(copied, E.idx(16));
      Value bufferStart = E.mul(buffer, E.idx(stateBuffer));
      if (skip)
        bufferStart = E.add(bufferStart, E.mul(skip, E.idx(L)));
      std::array<Value, 2> halves = {rowsHi, rowsLo};
      for (int64_t half : {0, 1}) {
        Value halfStart =
            E.add(rowStart,
                  E.i32(half * ChunkOutputTile::stateHalfElements(dim, s.e)));
        auto copy = [&](Value piece, int64_t destPiece, int64_t n) {
          Value from = E.add(E.mul(E.indexCast(piece, i32), E.i32(statePiece)),
                             halfStart);
          auto op = tile::BulkCopyOp::create(
              b, loc, chunkHalves,
              E.add(slotStart, E.indexCast(from, b.getIndexType())),
              halves[half], E.add(bufferStart, E.idx(destPiece * FP * L)),
              bytes, barriers, bar, Value());
          op.setRepeat(n);
          op.setSourceStride(statePiece);
          op.setDestStride(FP * L);
        };
        if (split.columnBlocks == 1) {
          copy(E.idx(0), 0, NV / L);
          continue;
        }
        // The block's pieces, then Z's (and its zeros) after them.
        copy(E.div(firstColumn, E.idx(L)), 0, blockPieces);
        copy(E.idx(firstZ), blockPieces, 1);
      }
      tile::MbarrierArriveOp::create(b, loc, barriers, bar,
                                     E.mul(copied, E.idx(2 * (NV / L) * 16)),
                                     Value());
    };
    // Rows [from, to) of buffer `buffer`, every piece and both halves, as
    // zeros: warp 1 (warp 0's elected lane issues the copies), a 16-byte
    // store per row and piece and half, then the fence that puts them
    // before the MMAs' reads (the async proxy) after the next barrier. The
    // buffer's readers are done (the barrier before the fill). `rowsOf`
    // gives the buffer, from and to, computed inside warp 1's branch (the
    // other warps' share of the loop's work is the branch alone).
    Value tid, zeroingWarp;
    if (bulk) {
      tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      zeroingWarp =
          E.cmpi(arith::CmpIPredicate::eq, E.div(tid, E.idx(32)), E.idx(1));
    }
    using ZeroRange = llvm::function_ref<std::array<Value, 3>()>;
    auto zeroRows = [&](ZeroRange rowsOf) {
      E.ifThen(zeroingWarp, [&] {
        auto [buffer, from, to] = rowsOf();
        int64_t pieces = NV / L;
        Value runs = E.mul(E.sub(to, from), E.idx(pieces));
        auto zeros = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(VectorType::get({L}, bf16),
                                   b.getZeroAttr(bf16)));
        E.forLoop(E.rem(tid, E.idx(32)), runs, E.idx(32), {},
                  [&](Value run, ValueRange) {
                    Value row = E.add(from, E.div(run, E.idx(pieces)));
                    Value at = E.add(
                        E.mul(buffer, E.idx(stateBuffer)),
                        E.add(E.mul(E.rem(run, E.idx(pieces)), E.idx(FP * L)),
                              E.mul(row, E.idx(L))));
                    for (Value half : {rowsHi, rowsLo})
                      vector::StoreOp::create(
                          b, loc, zeros, half, ValueRange{at},
                          /*nontemporal=*/false, llvm::MaybeAlign(16));
                    return SmallVector<Value>{};
                  });
        tile::AsyncProxyFenceOp::create(b, loc);
      });
    };
    if (bulk) {
      auto elected = tile::ElectedOp::create(b, loc);
      {
        OpBuilder::InsertionGuard inside(b);
        b.setInsertionPointToStart(&elected.getBody().front());
        for (int64_t i : {0, 1})
          tile::MbarrierInitOp::create(b, loc, barriers, E.idx(i), 1, Value());
        memref::StoreOp::create(b, loc, E.indexCast(slotStart, b.getI64Type()),
                                keptStarts, ValueRange{E.idx(kCopySource)});
        memref::StoreOp::create(b, loc, E.indexCast(yStart(), b.getI64Type()),
                                keptStarts, ValueRange{E.idx(kOutputRows)});
        memref::StoreOp::create(b, loc, E.indexCast(x, b.getI64Type()),
                                keptStarts, ValueRange{E.idx(kProgramX)});
        memref::StoreOp::create(b, loc, E.indexCast(batch, b.getI64Type()),
                                keptStarts, ValueRange{E.idx(kSequence)});
      }
      gpu::BarrierOp::create(b, loc);
    }
    // Each a's state rows from its 16-row block a0 on, in steps of F rows;
    // with two buffers step n uses buffer n % 2. So that every step's
    // buffer is a constant (and its descriptors with it), an a's part is
    // built for the parity of its first step: where a's walk an odd number
    // of steps, twice, under a uniform branch on a's place in its block.
    // (Two a's per loop iteration instead let ptxas keep the first a's
    // products live into the second's MMAs: spills.)
    int64_t firstStep = 0;
    // Rows that the bulk copies bring for the step from r0 (the state's
    // rows end at d).
    auto bulkRows = [&](int64_t r0) { return std::min(F, s.d - r0); };
    if (bulk)
      bulkStep(E.idx(0), 0, bulkRows(0), [&] {
        return std::pair<Value, Value>{E.idx(0), Value()};
      });
    else if (twoBuffers)
      copyStep(E.idx(0), E.idx(0), 0, /*firstOfA=*/true, F);
    acc = noState;
    for (int64_t a0 = 0; a0 < s.d; a0 += 16) {
      int64_t blockAs = std::min<int64_t>(16, s.d - a0);
      int64_t stepsPerA = (DK - a0 + F - 1) / F;
      // (With bulk copies a step's buffer is a runtime parity instead:
      // constant descriptors, loop-invariant, took vector registers where
      // the bulk copies' elected region runs in the loop.)
      bool alternates = twoBuffers && !bulk && stepsPerA % 2 == 1;
      // One a's part: its rows times q, then times each row's q_a; `odd`:
      // a - a0 is odd.
      auto partOfA = [&](Value a, bool odd, Value accIn) -> Value {
        Value dot = noState;
        for (int64_t i = 0; i < stepsPerA; ++i) {
          int64_t r0 = a0 + i * F, rowsHere = std::min(F, DK - r0);
          int64_t buffer = 0; // the step's buffer's offset (bulk: below)
          Value stepBuffer;   // with bulk copies: 0 or 1, at runtime
          if (twoBuffers) {
            int64_t parity = (firstStep + (odd ? stepsPerA : 0) + i) % 2;
            if (bulk) {
              // Step n = firstStep + (a - a0) stepsPerA + i fills buffer
              // n % 2 for the (n / 2)-th time: that phase's parity. Then
              // the step before's MMAs (off the other buffer) end in every
              // warp before its refill is issued.
              Value n = E.add(E.mul(E.sub(a, E.idx(a0)), E.idx(stepsPerA)),
                              E.idx(firstStep + i));
              stepBuffer = E.rem(n, E.idx(2));
              tile::MbarrierWaitOp::create(b, loc, barriers, stepBuffer,
                                           E.rem(E.div(n, E.idx(2)), E.idx(2)),
                                           Value());
              tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{});
              gpu::BarrierOp::create(b, loc);
            } else {
              t.asyncWait();
              if (warpgroup) // the copies, to the MMAs' async proxy
                tile::AsyncProxyFenceOp::create(b, loc);
              gpu::BarrierOp::create(b, loc);
              if (warpgroup) // the step before's MMAs, off the other buffer
                tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{});
            }
            int64_t other = (1 - parity) * stateBuffer;
            // The next step's copies: (nextA, nextR0), a's first or not.
            auto fill = [&](Value nextA, int64_t nextR0, bool firstOfA) {
              if (!bulk) {
                copyStep(nextA, E.idx(nextR0), other, firstOfA, nextR0 + F);
                return;
              }
              auto nextBuffer = [&] { return E.sub(E.idx(1), stepBuffer); };
              // The first step of an a past its block's first: rows below
              // it skipped and zero. Rows [0, zeroFrom) of its buffer are
              // zero already where the buffer's last fill was the first
              // step of a's two before (one step an a: the buffers
              // alternate by a) or of the a before (two steps an a);
              // otherwise it held a whole step.
              bool skips = firstOfA && nextR0 == a0;
              auto skipOf = [&] { return E.sub(nextA, E.idx(a0)); };
              if (skips)
                zeroRows([&] {
                  Value skip = skipOf(), zeroFrom = E.idx(0);
                  if (stepsPerA == 2)
                    zeroFrom = E.sub(skip, E.idx(1));
                  if (stepsPerA == 1)
                    zeroFrom = E.select(E.ult(skip, E.idx(2)), E.idx(0),
                                        E.sub(skip, E.idx(2)));
                  return std::array<Value, 3>{nextBuffer(), zeroFrom, skip};
                });
              bulkStep(nextA, nextR0, bulkRows(nextR0), [&] {
                return std::pair<Value, Value>{nextBuffer(),
                                               skips ? skipOf() : Value()};
              });
            };
            if (i + 1 < stepsPerA) {
              fill(a, r0 + F, false);
            } else {
              // The next a, in this block or (past its last a) the next.
              Value nextA = E.add(a, E.idx(1));
              int64_t nextA0 = a0 + 16;
              E.ifThen(E.ult(nextA, E.idx(a0 + blockAs)),
                       [&] { fill(nextA, a0, true); });
              if (nextA0 < s.d)
                E.ifThen(E.cmpi(arith::CmpIPredicate::eq, nextA, E.idx(nextA0)),
                         [&] { fill(nextA, nextA0, true); });
            }
            if (!bulk)
              buffer = parity * stateBuffer;
          } else {
            gpu::BarrierOp::create(b, loc); // the previous dots' readers
            stageState(E.add(rowOfB0(a), E.idx(r0)), rowsHere,
                       i == 0 ? E.sub(a, E.idx(a0)) : Value(), E.idx(s.d - r0));
            gpu::BarrierOp::create(b, loc);
          }
          // q's 16 columns from k0, as the dots' A operand.
          auto qAt = [&](Value array, int64_t k0) {
            return m.load(m.operand(0, R, 16, bf16), array, E.idx(k0), QS);
          };
          if (warpgroup) {
            for (int64_t k0 = r0; k0 < r0 + rowsHere; k0 += 16) {
              // (In a's first step its rows below a are zero: zeroRows.)
              // Rows k0 - r0 .. + 15 of the step: 8 k of 8 columns per
              // core matrix, the next 8 k 128 bytes on, the next 8
              // columns FP 16 bytes on.
              // With bulk copies: buffer 0's descriptor at the step's first
              // row, advanced (in 16 bytes: TileWarpgroupOps.td) to the
              // step's buffer, then to the k step's rows (8 rows of 16 bytes
              // each), in that order, so that the k steps share one
              // loop-variant value (a loop-invariant descriptor per k step
              // and half took registers ptxas lacked in steps of 64 rows).
              auto stateOf = [&](Value array) -> Value {
                if (!bulk)
                  return tile::WarpgroupDescriptorOp::create(
                      b, loc, array, E.idx(buffer + (k0 - r0) * 8), 0, 128,
                      FP * 16);
                Value first = tile::WarpgroupDescriptorOp::create(
                    b, loc, array, E.idx(0), 0, 128, FP * 16);
                assert(stateBuffer * 2 % 16 == 0 && "buffers 16 bytes apart");
                Value atStep = E.add(
                    first,
                    E.indexCast(E.mul(stepBuffer, E.idx(stateBuffer * 2 / 16)),
                                b.getI64Type()));
                if (k0 == r0)
                  return atStep;
                return E.add(atStep, arith::ConstantIntOp::create(
                                         b, loc, b.getI64Type(),
                                         (k0 - r0) * 8 * 2 / 16));
              };
              auto mma = [&](Value qA, Value rows) {
                dot = tile::WarpgroupMmaOp::create(
                    b, loc, accType, qA, stateOf(rows), dot,
                    TypeAttr::get(bf16), nullptr, b.getUnitAttr(),
                    b.getBoolAttr(true));
              };
              // Each fence after its A registers are written (else
              // ptxas adds one: C7519); q's lo half dead before its hi
              // half is loaded (registers: it spilled on sm_80 live
              // together).
              if (qLo) {
                Value qLoA = qAt(qLo, k0);
                tile::WarpgroupFenceOp::create(b, loc);
                mma(qLoA, rowsHi);
              }
              Value qA = qAt(qHi, k0);
              tile::WarpgroupFenceOp::create(b, loc);
              mma(qA, rowsHi);
              mma(qA, rowsLo);
            }
            tile::WarpgroupCommitOp::create(b, loc);
            continue;
          }
          for (int64_t k0 = r0; k0 < r0 + rowsHere; k0 += 16) {
            auto stateOf = [&](Value array) {
              return m.load(m.operand(1, 16, NV, bf16), array,
                            E.idx(buffer + (k0 - r0) * VS), VS);
            };
            // One state half live at a time (registers: a rotated q's
            // lo half spilled otherwise).
            Value qA = qAt(qHi, k0), bHi = stateOf(rowsHi);
            if (qLo)
              dot = m.dot(qAt(qLo, k0), bHi, dot);
            dot = m.dot(qA, bHi, dot);
            dot = m.dot(qA, stateOf(rowsLo), dot);
          }
        }
        if (warpgroup) // the MMAs' results, readable
          dot = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{dot})
                    .getResult(0);
        Value factor = factorOf(qHi, a);
        if (qLo)
          factor = E.add(factor, factorOf(qLo, a));
        // One fma per element (LLVM does not contract mul + add).
        return E.fma(dot, repeat(factor, accType), accIn);
      };
      acc = E.forLoop(
          E.idx(a0), E.idx(a0 + blockAs), E.idx(1), {acc},
          [&](Value a, ValueRange in) {
            if (!alternates)
              return SmallVector<Value>{partOfA(a, false, in[0])};
            Value odd = E.cmpi(arith::CmpIPredicate::ne,
                               E.rem(E.sub(a, E.idx(a0)), E.idx(2)), E.idx(0));
            return SmallVector<Value>{E.ifElse(
                odd, accType, [&] { return partOfA(a, true, in[0]); },
                [&] { return partOfA(a, false, in[0]); })};
          })[0];
      firstStep += blockAs * stepsPerA;
    }
  } else {
    // This thread's feature column of phi(Q) and its first query row.
    Value fc = E.rem(thread, t.index(F));
    Value firstRow = E.div(thread, t.index(F));
    int64_t rowsPerThread = R * F / P, rowStep = P / F;
    int64_t steps = (dim + F - 1) / F;
    acc = E.forLoop(
        E.idx(0), E.idx(steps), E.idx(1), {noState},
        [&](Value step, ValueRange in) {
          Value f0 = E.mul(step, E.idx(F));
          gpu::BarrierOp::create(b, loc); // the previous step's readers
          Value stateRows = E.min(E.idx(F), E.sub(E.idx(dim), f0));
          stageState(f0, F, Value(), stateRows);
          // phi of feature f0 + fc for rows firstRow + rowStep r: q as hi +
          // lo (the row's weight is in the staged state).
          Value feature = E.add(t.splat(f0), fc);
          Value inside = E.ult(feature, t.index(dim));
          SmallVector<Value> multiset = gpu_detail::unrankRows(
              t, s.p, s.d, E.min(feature, t.index(dim - 1)));
          Value coef =
              E.select(inside, t.constant(f32, 1.0), t.constant(f32, 0.0));
          E.forLoop(
              E.idx(0), E.idx(rowsPerThread), E.idx(1), {},
              [&](Value r, ValueRange) {
                Value i = E.add(firstRow, t.splat(E.mul(r, E.idx(rowStep))));
                Value qRow = E.mul(i, t.index(QS));
                Value product = coef;
                for (Value dd : multiset) {
                  Value at = E.add(qRow, dd);
                  Value qx = t.convert(t.load(qHi, at, nullptr), f32);
                  if (qLo)
                    qx = E.add(qx, t.convert(t.load(qLo, at, nullptr), f32));
                  product = E.mul(product, qx);
                }
                t.storeBf16(product, operandHi, operandLo,
                            E.add(E.mul(i, t.index(PS)), fc), nullptr);
                return SmallVector<Value>{};
              });
          gpu::BarrierOp::create(b, loc);
          Value out = in[0];
          for (int64_t k0 = 0; k0 < F; k0 += 16) {
            auto phiOf = [&](Value array) {
              return m.load(m.operand(0, R, 16, bf16), array, E.idx(k0), PS);
            };
            auto stateOf = [&](Value array) {
              return m.load(m.operand(1, 16, NV, bf16), array, E.idx(k0 * VS),
                            VS);
            };
            Value aHi = phiOf(operandHi), bHi = stateOf(rowsHi);
            out = m.dot(phiOf(operandLo), bHi, out);
            out = m.dot(aHi, stateOf(rowsLo), out);
            out = m.dot(aHi, bHi, out);
          }
          return SmallVector<Value>{out};
        })[0];
  }

  if (split.bulkState(s.e)) {
    x = keptStart(kProgramX);
    batch = keptStart(kSequence);
    placeRows();
  }

  // The state's part as the running maximum's start: log weight
  // G_i + log|den_S| (base 2), the accumulator divided by |den_S| (none:
  // -inf, 0).
  Value negInf = splatTo(rowType, -std::numeric_limits<float>::infinity());
  Value zero8 = splatTo(rowType, 0.0);
  Value gi = m.loadTransposed(rowType, queryGates, E.idx(0), 0);
  // (Its denominator: column EV on, as [S | Z | 0 ...] is staged.)
  Value denS = m.denominators(acc, EV, rowType);
  Value hasState = E.cmpf(arith::CmpFPredicate::ONE, denS, zero8);
  Value absDen = E.select(hasState, E.abs(denS), splatTo(rowType, 1.0));
  Value m0 = E.select(hasState, E.add(gi, E.log2Approx(absDen)), negInf);
  // The query rows' part of every log weight but the carried gate sum:
  // G_i + p log2(scale).
  Value giScaled = E.add(gi, splatTo(rowType, p * std::log2(scale)));
  Value inv0 = E.select(hasState, E.div(splatTo(rowType, 1.0), absDen), zero8);
  acc = E.mul(acc, repeat(inv0, accType));

  // 2. The chunk's keys up to the diagonal, K per step.
  RankedTensorType scoreType = m.accumulator(R, K);
  // Token positions in the masks as i32 (a sequence is below 2^31 tokens):
  // one register per element where index takes two.
  RankedTensorType indexType = RankedTensorType::get(
      scoreType.getShape(), b.getI32Type(), scoreType.getEncoding());
  auto splatPosition = [&](Value x) -> Value {
    return tile::SplatOp::create(
        b, loc, indexType,
        arith::IndexCastOp::create(b, loc, b.getI32Type(), x));
  };
  Value end = E.add(t0, rows);
  Value keySteps = E.div(E.add(E.sub(end, chunkStart), E.idx(K - 1)), E.idx(K));
  // Rows and keys counted from the program's first row t0 (signed: a
  // step's first key may be before it).
  Value rowIndex = tile::MatrixRangeOp::create(b, loc, indexType, 0);
  Value colIndex = tile::MatrixRangeOp::create(b, loc, indexType, 1);
  Value power = splatTo(scoreType, p);
  Value scoreNegInf =
      splatTo(scoreType, -std::numeric_limits<float>::infinity());
  // The steps before the program's first row hold only keys before every
  // row and T: their scores need no mask, and they weigh them without a log
  // or exp per score (below).
  Value stepsBefore = E.div(before, E.idx(K));
  bool gated = s.gate != GateKind::None;
  // Warpgroup key steps (ChunkOutputTile::warpgroupKeys): a step's keys in
  // operandHi (and, split, their lo halves in operandLo) and [V | 1] in
  // rowsHi (a state buffer, free once the state's MMAs are done), all
  // canonical; the ones column written once.
  bool wgKeys = split.warpgroupKeys;
  gpu_detail::RunCopies copies(t, batch, T);
  std::optional<gpu_detail::RunCopies::Plan> keyCopies, valueCopies;
  if (wgKeys) {
    assert(!splitV && "warpgroup key steps take bf16 values as they are");
    gpu::BarrierOp::create(b, loc); // the state's readers of rowsHi
    // Copies land in 16-byte runs; descriptors start on 16 bytes.
    fn.setWorkgroupAttributionAttr(1, "llvm.align", b.getI64IntegerAttr(16));
    if (operandLo)
      fn.setWorkgroupAttributionAttr(7, "llvm.align", b.getI64IntegerAttr(16));
    if (!splitQK)
      keyCopies = copies.canonical(k, s.h, h, K, DK, operandHi, 0);
    valueCopies =
        copies.canonical(v, s.h, h, K, EV, rowsHi, 0,
                         split.columnBlocks > 1 ? firstColumn : Value(), s.e);
    copies.storeOnesColumn(rowsHi, 0, K, EV, bf16);
  }
  // Split keys (chunk_keys' rotated f32) into the canonical layout as bf16
  // hi + lo, through registers: runs of 4 adjacent dims (16 bytes), row j's
  // dims c .. c + 3 at ((c / 8) K + j) 8 + c % 8; zeros past count.
  auto stageSplitKeys = [&](Value kt, Value count) {
    constexpr int64_t L = 4;
    Value rowsStart = tokenBase(kt, s.h, h, s.d);
    forRunStarts(K * DK, L, [&](Value start) {
      Value j = E.div(start, t.index(DK)), c = E.rem(start, t.index(DK));
      Value inTile = E.ult(start, t.index(K * DK));
      Value live = t.logicalAnd(inTile, E.ult(j, t.splat(count)));
      Value at = E.add(
          E.add(t.splat(rowsStart), E.mul(j, t.index(s.h * s.d))), c);
      Value x = t.load(k, runOffsets(at, L), spread(live, L), true);
      Value to = E.add(
          gpu_detail::canonicalPieceOffset(t, j, E.div(c, t.index(8)), K),
          E.rem(c, t.index(8)));
      t.storeBf16(x, operandHi, operandLo, runOffsets(to, L),
                  spread(inTile, L), true);
    });
  };
  // q's A fragment of columns k0 .. k0 + 15 (of its hi or lo half) for a
  // warpgroup key step, read from q as staged each step (held in registers
  // across the steps, the fragments spilled at two programs per SM on
  // sm_90a).
  auto queryFragment = [&](Value array, int64_t k0) {
    return m.load(m.operand(0, R, 16, bf16), array, E.idx(k0), QS);
  };
  // One key step's part of a warp's rows (keys from kt, the step's gate
  // sums staged, `carry` G of its last key): the scores, their weights
  // against the running maximum mOld, and P [V | 1] added to the rescaled
  // sums accIn.
  auto addKeyStep = [&](Value step, Value kt, Value carry, Value accIn,
                        Value mOld) -> SmallVector<Value> {
    // Scores q.k (split: the small products first).
    Value scores = splatTo(scoreType, 0.0);
    if (wgKeys) {
      bool first = true;
      auto product = [&](Value qA, Value keys, int64_t k0) {
        scores = tile::WarpgroupMmaOp::create(
            b, loc, scoreType, qA,
            gpu_detail::keysDescriptor(t, keys, 0, K, k0), scores,
            TypeAttr::get(bf16), nullptr, nullptr, b.getBoolAttr(!first));
        first = false;
      };
      tile::WarpgroupFenceOp::create(b, loc);
      for (int64_t k0 = 0; k0 < DK; k0 += 16) {
        Value qA = queryFragment(qHi, k0);
        if (splitQK) {
          product(queryFragment(qLo, k0), operandHi, k0);
          product(qA, operandLo, k0);
        }
        product(qA, operandHi, k0);
      }
      tile::WarpgroupCommitOp::create(b, loc);
      scores = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{scores})
                   .getResult(0);
    }
    for (int64_t k0 = 0; !wgKeys && k0 < DK; k0 += 16) {
      auto qOf = [&](Value array) {
        return m.load(m.operand(0, R, 16, bf16), array, E.idx(k0), QS);
      };
      auto kOf = [&](Value array) {
        return m.loadTransposed(m.operand(1, 16, K, bf16), array, E.idx(k0),
                                QS);
      };
      Value aHi = qOf(qHi), bHi = kOf(operandHi);
      if (splitQK) {
        scores = m.dot(qOf(qLo), bHi, scores);
        scores = m.dot(aHi, kOf(operandLo), scores);
      }
      scores = m.dot(aHi, bHi, scores);
    }
    // lw = p log2|q.k| + p log2(scale) + G_i - G_j = p log2|q.k| +
    // rowPart_i + sigma_j, rowPart_i = G_i + p log2(scale) - G of the
    // step's last key.
    Value rowPart =
        E.sub(giScaled, tile::SplatOp::create(b, loc, rowType, carry));
    // Weights 2^(lw - m) against a new running maximum m (-inf rows,
    // nothing yet, shift by 0).
    auto shiftOf = [&](Value running) { return m.shiftOf(running); };
    auto rowMax = [&](Value x) { return m.rowMax(x, rowType); };
    // Steps from the program's first row on (a uniform branch) mask
    // their scores and take lw per score; the steps before it, whose
    // keys are before every row and all inside, take u = (q.k)^p
    // 2^sigma_j (in f32, the range phi(q) . S has): 2^lw = u
    // 2^rowPart_i, so that the row's maximum and the weights 2^(lw -
    // m) take a log and an exp per row, none per score.
    SmallVector<Value> weighed = E.ifElse(
        E.cmpi(arith::CmpIPredicate::uge, step, stepsBefore),
        TypeRange{scoreType, rowType},
        [&]() -> SmallVector<Value> {
          Value logBase = repeat(rowPart, scoreType);
          if (gated)
            logBase = E.add(logBase, m.load(scoreType, keyGates, E.idx(0), 0));
          // (The log and the exp flush subnormals: |q.k| below 2^-126
          // and weights below 2^-126 of the row's largest weigh 0.)
          Value lw = E.fma(power, E.log2Flush(E.abs(scores)), logBase);
          Value key = E.add(colIndex, splatPosition(E.sub(kt, t0)));
          Value inside = t.logicalAnd(
              E.cmpi(arith::CmpIPredicate::sle, key, rowIndex),
              E.cmpi(arith::CmpIPredicate::slt, key, splatPosition(rows)));
          lw = E.select(inside, lw, scoreNegInf);
          Value mNew = E.max(mOld, rowMax(lw));
          return {E.exp2Flush(E.sub(lw, repeat(shiftOf(mNew), scoreType))),
                  mNew};
        },
        [&]() -> SmallVector<Value> {
          Value u = E.power(E.mul(scores, scores), s.p / 2);
          if (gated) // else 2^sigma_j = 1
            u = E.mul(u, m.load(scoreType, keyGates, E.idx(K), 0));
          Value mNew = E.max(mOld, E.add(E.log2Approx(rowMax(u)), rowPart));
          Value rowWeight = E.exp2Approx(E.sub(rowPart, shiftOf(mNew)));
          return {E.mul(u, repeat(rowWeight, scoreType)), mNew};
        });
    Value weights = weighed[0], mNew = weighed[1];
    Value shift = shiftOf(mNew);
    Value alpha = E.exp2Approx(E.sub(mOld, shift));
    Value out = E.mul(accIn, repeat(alpha, accType));
    if (wgKeys) {
      // P's 16 columns from k0 against [V | 1]'s rows k0 .. k0 + 15.
      Value pTile = t.convert(weights, bf16);
      SmallVector<Value> pA;
      for (int64_t k0 = 0; k0 < K; k0 += 16)
        pA.push_back(tile::ToOperandOp::create(
            b, loc, m.operand(0, R, 16, bf16), pTile, k0));
      tile::WarpgroupFenceOp::create(b, loc);
      for (int64_t k0 = 0; k0 < K; k0 += 16)
        out = tile::WarpgroupMmaOp::create(
            b, loc, accType, pA[k0 / 16],
            gpu_detail::valuesDescriptor(t, rowsHi, 0, K, k0), out,
            TypeAttr::get(bf16), nullptr, b.getUnitAttr(), b.getBoolAttr(true));
      tile::WarpgroupCommitOp::create(b, loc);
      out = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{out})
                .getResult(0);
      return {out, mNew};
    }
    Value pA = tile::ToOperandOp::create(b, loc, m.operand(0, R, K, bf16),
                                         t.convert(weights, bf16));
    auto valuesOf = [&](Value array) {
      return m.load(m.operand(1, K, NV, bf16), array, E.idx(0), VS);
    };
    if (splitV)
      out = m.dot(pA, valuesOf(rowsLo), out);
    out = m.dot(pA, valuesOf(rowsHi), out);
    return {out, mNew};
  };
  auto loop = E.forLoop(
      E.idx(0), keySteps, E.idx(1), {acc, m0, E.f32(0.0)},
      [&](Value step, ValueRange in) {
        Value kt = E.add(chunkStart, E.mul(step, E.idx(K)));
        Value count = E.min(E.idx(K), E.sub(end, kt));
        gpu::BarrierOp::create(b, loc); // the previous step's readers
        if (wgKeys) {
          if (splitQK)
            stageSplitKeys(kt, count);
          else
            copies.copy(*keyCopies, kt, count);
          copies.copy(*valueCopies, kt, count);
          gpu_detail::storeKeyStepGates(t, keyGates, K, [&](int64_t per) {
            return gatesOf(kt, count, per);
          });
          t.asyncWait();
          // Copies and stores, to the MMAs.
          tile::AsyncProxyFenceOp::create(b, loc);
        } else {
          stageKeys(k, s.h, h, kt, count, K, operandHi,
                    splitQK ? operandLo : Value(), false);
          // [V | 1 | 0 ...], the program's block of columns: V every step;
          // the ones column at EV and the zeros after it only in the first,
          // since no later step writes there (the state's steps before did).
          // Its ones in rows past count weigh nothing: those keys' weights
          // are 0 (masked, past T).
          Value valueRows = E.add(tokenBase(kt, s.h, h, s.e), firstColumn);
          Value valuesLo = splitV ? rowsLo : Value();
          stageColumns(
              K, 0, EV, VS, inputBytes, rowsHi, valuesLo,
              [&](Value j, Value c, Value inTile, int64_t L) {
                Value live = t.logicalAnd(inTile, E.ult(j, t.splat(count)));
                Value at = E.add(
                    E.add(t.splat(valueRows), E.mul(j, t.index(s.h * s.e))), c);
                return t.convert(
                    t.load(v, runOffsets(at, L), spread(live, L), L > 1), f32);
              });
          E.ifThen(E.cmpi(arith::CmpIPredicate::eq, step, E.idx(0)), [&] {
            stageColumns(K, EV, NV - EV, VS, inputBytes, rowsHi, valuesLo,
                         [&](Value, Value c, Value, int64_t L) {
                           return E.select(atColumnE(c, L),
                                           t.constant(f32, 1.0, L),
                                           t.constant(f32, 0.0, L));
                         });
          });

          // The step's gates (thread j < K: key j's, 0 past count) summed
          // after each key by a reversed scan of shuffles (K keys are one
          // warp's lanes): sigma_j = sum of the gates after key j (<= 0) at
          // keyGates[j], 2^sigma_j at [K + j], the step's sum at [2 K]. The
          // barrier also publishes the staged arrays. (Without gates sigma_j
          // is 0, and the scores skip it; the scan stays: without it ptxas
          // spilled at d = e = 32 on sm_80.)
          Value g = gatesOf(kt, count);
          Value fromJ = tile::ScanOp::create(b, loc, g, K, /*reverse=*/true);
          Value after = E.sub(fromJ, g);
          Value isKey = E.ult(thread, t.index(K));
          t.store(after, keyGates, thread, isKey);
          t.store(E.exp2Approx(after), keyGates, E.add(thread, t.index(K)),
                  isKey);
          t.store(fromJ, keyGates, E.add(thread, t.index(2 * K)),
                  E.ult(thread, t.index(1)));
        }
        gpu::BarrierOp::create(b, loc);
        // G of the step's last key from the chunk's start.
        Value carry = E.add(in[2], E.load(keyGates, {E.idx(2 * K)}));
        // A warp whose 16 rows (a warpgroup whose 64, with warpgroup key
        // steps) all lie before the step's first key has nothing to add
        // (every score masked): it keeps its rows' sums and maximum (a
        // branch uniform in the warp or warpgroup; nothing below it meets
        // other warps).
        int64_t groupRows = wgKeys ? 64 : 16;
        Value warpLast = E.add(
            E.mul(E.div(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
                        E.idx(2 * groupRows)),
                  E.idx(groupRows)),
            E.idx(groupRows - 1));
        Value warpLive =
            E.cmpi(arith::CmpIPredicate::sle, E.sub(kt, t0), warpLast);
        SmallVector<Value> added = E.ifElse(
            warpLive, TypeRange{accType, rowType},
            [&] { return addKeyStep(step, kt, carry, in[0], in[1]); },
            [&]() -> SmallVector<Value> {
              return {in[0], in[1]};
            });
        return SmallVector<Value>{added[0], added[1], carry};
      });

  // 3. y = num / den, at the rows' start the bulk path kept in workgroup
  // memory (computed here, LLVM kept the 64-bit offset of q's rows live
  // from q's staging on: a spill at 128 registers).
  Value out = t.convert(m.normalizeRows(loop[0], EV, rowType), elem);
  Value yAt = bulk ? keptStart(kOutputRows) : yStart();
  m.store(out, y, yAt, s.hq * s.e, rows, E.idx(EV));
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
