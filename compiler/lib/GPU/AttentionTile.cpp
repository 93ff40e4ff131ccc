//===- AttentionTile.cpp - The attention formulation as a tile kernel -----===//
//
// y of the attention formulation for 16-bit inputs
// (sympow/Support/AttentionTile.h). Program (x, query head and column
// block, sequence) owns query rows [t0, t0 + R), one warpgroup, in
// accumulators of [num | den] (its block of EV value columns, all e of them
// unless e = 256 and the like, then the denominator at column EV), and
// walks the keys
// from its diagonal back to the sequence's start, K per step:
//  - the step's keys and values are copied (cp.async, 16-byte runs, zeros
//    past T) into the warpgroup MMA's canonical layout: row j's columns
//    8c .. 8c + 7 at (c K + j) 8, keys K-major as the scores' B, [V | 1] as
//    P's transposed B (the ones column at e is written once);
//  - scores S = Q K^T by warpgroup MMAs, q's A fragments in registers (read
//    from workgroup memory once), f32 accumulation. Rotating layers read q
//    and k as rotate_qk left them, rotated once into hi + lo halves
//    (RotatedOperands.cpp), copied like unrotated ones but twice as wide,
//    and take three products: q_lo k_hi + q_hi k_lo + q_hi k_hi;
//  - log weights in base 2 relative to the token before t0, so that no
//    prefix over the whole sequence is summed and the sums stay small near
//    the diagonal where the weights are large: G_i - G_j = Gq_i + carry +
//    sigma_j, Gq_i the rows' own gate prefix from t0, sigma_j the gates
//    after key j in its step, carry the gates between the step and t0
//    (minus the step's sum on the diagonal);
//  - the diagonal step masks its scores and takes lw = p log2|q.k| + ... per
//    score; the steps before it, whose keys all precede every row, take
//    u = (q.k)^p 2^sigma_j and a log and an exp per row only (as the tile
//    chunk_output's key steps before its first row);
//  - P = 2^(lw - m) (f16 for f16 inputs, as their values), in registers via
//    `to_operand`, 16 columns per MMA, times [V | 1] into the accumulators
//    rescaled by 2^(m_old - m);
// then y = num / den. The programs along x start with the heaviest (the
// last query rows), so that the grid does not end on them.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/AttentionTile.h"

#include <cmath>
#include <limits>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {

std::optional<AttentionTile> attentionTileOf(const AttentionKernelSpec &s) {
  if (s.path == AttentionPath::Scalar ||
      (s.blockTokens && s.blockTokens != AttentionTile::kRows))
    return std::nullopt;
  return attentionTile(s.dtype != ElementKind::F32, s.rotates(),
                       s.relativeSchedule(), s.d, s.e);
}

void buildAttentionKernels(OpBuilder &b, gpu::GPUModuleOp module,
                           const AttentionKernelSpec &s) {
  std::optional<AttentionTile> shape = attentionTileOf(s);
  if (shape && shape->splitScores) {
    if (failed(chunked::buildCounts(b, module, s,
                                    runtime::Formulation::Attention)))
      llvm::report_fatal_error("chunk_counts: the tile lowering failed");
    if (failed(chunked::buildRotateQK(b, module, s)))
      llvm::report_fatal_error("rotate_qk: the tile lowering failed");
  }
  buildAttentionKernel(b, module, s);
}

gpu::GPUFuncOp buildAttentionKernel(OpBuilder &builder, gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &spec,
                                    StringRef name) {
  LogicalResult built = attentionTileOf(spec)
                            ? buildAttentionTile(builder, module, spec)
                            : buildAttentionFma(builder, module, spec);
  if (failed(built))
    llvm::report_fatal_error("attention: the tile lowering failed");
  auto fn = module.lookupSymbol<gpu::GPUFuncOp>(
      runtime::kernelName(runtime::KernelId::Attention));
  fn.setName(name);
  return fn;
}

LogicalResult buildAttentionTile(OpBuilder &b, gpu::GPUModuleOp module,
                                 const AttentionKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  constexpr int64_t R = AttentionTile::kRows, K = AttentionTile::kKeys,
                    P = AttentionTile::kThreads, L = 8;
  AttentionTile shape = *attentionTileOf(s);
  bool split = shape.splitScores;
  // The value columns this program takes (all, or its block of them).
  int64_t EV = shape.programColumns(s.e);
  int64_t DK = AttentionTile::keyColumns(s.d),
          NV = AttentionTile::valueColumns(EV), QS = shape.queryStride(s.d);
  int64_t QK = shape.sourceColumns(s.d);
  using gpu_detail::workgroupMemRef;
  // The operands: q until its fragments are in registers, then a step's
  // keys and its [V | 1] (AttentionTile::operandElements); the query rows'
  // gate prefix and its scan's buffer; the key step's gate sums.
  int64_t valuesAt = shape.keyElements(s.d);
  SmallVector<Type> workgroup = {
      workgroupMemRef({shape.operandElements(s.d, s.e)}, elem),
      workgroupMemRef({R}, f32), workgroupMemRef({2 * R}, f32),
      workgroupMemRef({ChunkOutputTile::keyGateElements(K)}, f32)};
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::Attention, P,
      {tile::KernelAttr::perTokens(R), s.hq * shape.columnBlocks,
       tile::KernelAttr::kBatch},
      workgroup, args, 0, runtime::Formulation::Attention);
  tile::setMinBlocksPerSM(fn, shape.minProgramsPerSM(s.d, s.e));
  // Copies land in 16-byte runs; descriptors start on 16 bytes.
  fn.setWorkgroupAttributionAttr(0, "llvm.align", b.getI64IntegerAttr(16));
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  gpu_detail::MatrixTiles m{b, loc, R / 16, 1};
  using runtime::KernelArg;
  Value q = args.get(fn, split ? KernelArg::RotatedQHalves : KernelArg::Q),
        k = args.get(fn, split ? KernelArg::RotatedKHalves : KernelArg::K),
        v = args.get(fn, KernelArg::V), y = args.get(fn, KernelArg::Y);
  Value logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma);
  auto wg = fn.getWorkgroupAttributions();
  Value operands = wg[0], queryGates = wg[1], queryScan = wg[2],
        keyGates = wg[3];

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value batch = ids.z;
  // Along y: the query head, then the block of value columns.
  Value hq = E.div(ids.y, E.idx(shape.columnBlocks)),
        firstColumn = E.mul(E.rem(ids.y, E.idx(shape.columnBlocks)), E.idx(EV));
  Value T = args.seqLen(b, fn);
  Value h = E.div(hq, E.idx(s.hq / s.h));
  // The heaviest programs (the last rows) first.
  Value programs = E.div(E.add(T, E.idx(R - 1)), E.idx(R));
  Value x = E.sub(E.sub(programs, E.idx(1)), ids.x);
  Value t0 = E.mul(x, E.idx(R));
  Value rows = E.min(E.idx(R), E.sub(T, t0));
  Value thread = t.range();
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto tokenBase = [&](Value first, int64_t heads, Value head, int64_t width) {
    return gpu_detail::tokenOffset(E, batch, T, first, heads, head, width);
  };
  double p = double(s.p), scale = std::abs(s.effectiveScale());
  Value gamma = logGamma ? E.load(logGamma, {h}) : Value();
  // The log gates in base 2 (times log2 e): weights are 2^(lw - m), the
  // hardware's own exp.
  auto gatesOf = [&](Value first, Value count, int64_t perThread = 1) {
    Value g = chunked::tokenGates(t, s, logG, gamma, batch, T, h, first, count,
                                  perThread);
    return E.mul(g, t.constant(f32, M_LOG2E, perThread));
  };

  // The copies of `tileRows` rows of a [B, T, heads, width] tensor in
  // 16-byte runs: pass n of a thread takes run thread + n P of the order
  // `rowOf` / `runColumn` give, placed by `at(j, c)` (row j's run from
  // column c). The order takes the runs in groups of `groupRows` whole
  // rows; where P runs are whole groups, pass n is pass 0 moved down by
  // constants (`rowsPerPass` rows, `destRowStride` elements a row), so each
  // thread keeps one row, column, source offset (from the rows' first
  // token) and destination; else every pass keeps its own.
  struct CopyPass {
    Value row, column, from, to;
    Value inTile; // null: every thread's run is inside
  };
  // Columns [firstColumn, + width) of rows `rowWidth` wide.
  struct CopyPlan {
    Value src, dest, head, firstColumn;
    int64_t heads, width, rowWidth, runs, destRowStride, rowsPerPass = 0;
    SmallVector<CopyPass> passes = {};
  };
  auto planCopies = [&](Value src, int64_t heads, Value head, int64_t tileRows,
                        int64_t width, Value dest, int64_t groupRows,
                        int64_t destRowStride,
                        llvm::function_ref<Value(Value r)> rowOf,
                        llvm::function_ref<Value(Value r)> runColumn,
                        llvm::function_ref<Value(Value j, Value c)> at,
                        Value firstColumn = {}, int64_t rowWidth = 0) {
    rowWidth = rowWidth ? rowWidth : width;
    CopyPlan plan{src,          dest,  head,     firstColumn,
                  heads,        width, rowWidth, tileRows * (width / L),
                  destRowStride};
    int64_t groupRuns = groupRows * (width / L);
    if (P % groupRuns == 0 && plan.runs % P == 0)
      plan.rowsPerPass = P / groupRuns * groupRows;
    for (int64_t from = 0; from < plan.runs; from += P) {
      Value r = E.add(thread, t.index(from));
      CopyPass pass;
      pass.inTile =
          from + P > plan.runs ? E.ult(r, t.index(plan.runs)) : Value();
      pass.row = rowOf(r);
      pass.column = runColumn(r);
      pass.from =
          E.add(E.mul(pass.row, t.index(heads * rowWidth)), pass.column);
      pass.to = at(pass.row, pass.column);
      plan.passes.push_back(pass);
      if (plan.rowsPerPass)
        break;
    }
    return plan;
  };
  // Issues the plan's copies of the rows from token `first`: all of them
  // inside T, or (`count`) rows count .. tileRows - 1 as zeros, read from
  // row 0 (inside T: count >= 1).
  auto copy = [&](const CopyPlan &plan, Value first, Value count) {
    Value base = tokenBase(first, plan.heads, plan.head, plan.rowWidth);
    if (plan.firstColumn)
      base = E.add(base, plan.firstColumn);
    base = t.splat(base);
    int64_t passes = (plan.runs + P - 1) / P;
    for (int64_t n = 0; n < passes; ++n) {
      CopyPass pass = plan.passes[plan.rowsPerPass ? 0 : n];
      Value from = pass.from, to = pass.to, row = pass.row, live;
      if (plan.rowsPerPass && n > 0) {
        int64_t rows = n * plan.rowsPerPass;
        from = E.add(from, t.index(rows * plan.heads * plan.rowWidth));
        to = E.add(to, t.index(rows * plan.destRowStride));
        row = E.add(row, t.index(rows));
      }
      if (count) {
        live = E.ult(row, t.splat(count));
        from = E.select(live, from, pass.column);
      }
      t.asyncCopy(plan.src, E.add(base, from), plan.dest, to, L, pass.inTile,
                  live);
    }
  };
  // q row-major (stride QS): runs along a row first.
  int64_t qRuns = QK / L;
  copy(planCopies(
           q, s.hq, hq, R, QK, operands, 1, QS,
           [&](Value r) { return E.div(r, t.index(qRuns)); },
           [&](Value r) { return E.mul(E.rem(r, t.index(qRuns)), t.index(L)); },
           [&](Value j, Value c) { return E.add(E.mul(j, t.index(QS)), c); }),
       t0, rows);
  // A step's keys or values in the canonical layout. Eight adjacent runs
  // are eight rows of one column piece, 128 adjacent bytes: conflict-free
  // stores, and a warp reads 64 bytes of each of 8 rows. Groups of 8 rows.
  auto planStep = [&](Value src, int64_t width, int64_t destAt,
                      Value firstColumn = {}, int64_t rowWidth = 0) {
    int64_t pieces = width / L;
    return planCopies(
        src, s.h, h, K, width, operands, 8, L,
        [&](Value r) {
          return E.add(E.rem(r, t.index(8)),
                       E.mul(E.div(r, t.index(8 * pieces)), t.index(8)));
        },
        [&](Value r) {
          return E.mul(E.rem(E.div(r, t.index(8)), t.index(pieces)),
                       t.index(L));
        },
        [&](Value j, Value c) {
          return E.add(E.mul(E.add(E.mul(E.div(c, t.index(L)), t.index(K)), j),
                             t.index(L)),
                       t.index(destAt));
        },
        firstColumn, rowWidth);
  };
  CopyPlan keyCopies = planStep(k, QK, 0),
           valueCopies = planStep(v, EV, valuesAt, firstColumn, s.e);

  // Gq_i: the query rows' gates from t0 on.
  int64_t queryHalf =
      gpu_detail::inclusiveScan(t, queryScan, R, gatesOf(t0, rows));
  {
    Value isRow = E.ult(thread, t.index(R));
    t.store(t.load(queryScan, E.add(thread, t.index(queryHalf)), isRow),
            queryGates, thread, isRow);
  }
  t.asyncWait(); // q
  gpu::BarrierOp::create(b, loc);
  // q's A fragments, 16 columns each, for every step (split: the hi
  // half's, then the lo half's from column DK).
  SmallVector<Value> qA;
  for (int64_t k0 = 0; k0 < shape.operandColumns(s.d); k0 += 16)
    qA.push_back(m.load(m.operand(0, R, 16, elem), operands, E.idx(k0), QS));
  gpu::BarrierOp::create(b, loc); // q's readers, before the steps' writers
  // [V | 1 | 0 ...]: the ones column at EV for every key row, once (keys
  // past T weigh 0, their values are copied as zeros). EV is a multiple of
  // 8, so columns EV .. EV + 7 are one run: [1, 0, ..., 0].
  {
    Value j = thread;
    Value at = E.add(E.mul(E.add(t.index(EV / L * K), j), t.index(L)),
                     t.index(valuesAt));
    Value slot = E.rem(t.range(L), t.index(L, L));
    Value one = E.select(t.eq(slot, t.index(0, L)), t.constant(elem, 1.0, L),
                         t.constant(elem, 0.0, L));
    t.store(one, operands, t.run(at, L), t.expand(E.ult(j, t.index(K)), L),
            true);
  }

  RankedTensorType accType = m.accumulator(R, NV),
                   rowType = m.accumulator(R, 8),
                   scoreType = m.accumulator(R, K);
  auto repeat = [&](Value x, RankedTensorType type) {
    return m.repeat(x, type);
  };
  auto splatTo = [&](RankedTensorType type, double value) {
    return m.splat(type, value);
  };
  // G_i from t0 plus p log2(scale): every log weight's row part but the
  // step's carry.
  Value giScaled = E.add(m.loadTransposed(rowType, queryGates, E.idx(0), 0),
                         splatTo(rowType, p * std::log2(scale)));
  // Token positions in the diagonal's mask as i32 (one register per element
  // where index takes two).
  RankedTensorType indexType = RankedTensorType::get(
      scoreType.getShape(), b.getI32Type(), scoreType.getEncoding());
  Value rowIndex = tile::MatrixRangeOp::create(b, loc, indexType, 0);
  Value colIndex = tile::MatrixRangeOp::create(b, loc, indexType, 1);
  Value rowsI32 = tile::SplatOp::create(
      b, loc, indexType,
      arith::IndexCastOp::create(b, loc, b.getI32Type(), rows));
  Value power = splatTo(scoreType, p);
  Value scoreNegInf =
      splatTo(scoreType, -std::numeric_limits<float>::infinity());
  bool gated = s.gate != GateKind::None;
  Value zeroScores = splatTo(scoreType, 0.0);

  // Stages the step of keys [kt, kt + K) (`count` of them inside T; null:
  // all) and its gate sums, and returns its scores and its gate sum.
  auto beginStep = [&](Value kt, Value count) -> std::pair<Value, Value> {
    gpu::BarrierOp::create(b, loc); // the step before's readers
    copy(keyCopies, kt, count);
    copy(valueCopies, kt, count);
    // The step's gates (keys 2 l and 2 l + 1 in lane l of the first warp,
    // 0 past count) summed after each key by a reversed scan of shuffles:
    // sigma_j at keyGates[j], 2^sigma_j at [K + j], the step's sum at
    // [2 K]. The other warps skip it (a branch uniform in each warp).
    E.ifThen(E.ult(threadId, E.idx(32)), [&] {
      Value g = gatesOf(kt, count ? count : E.idx(K), 2);
      Value fromJ = tile::ScanOp::create(b, loc, g, K, /*reverse=*/true);
      Value after = E.sub(fromJ, g);
      Value key = t.range(2);
      t.store(after, keyGates, key, nullptr, true);
      t.store(E.exp2Approx(after), keyGates, E.add(key, t.index(K, 2)), nullptr,
              true);
      t.store(fromJ, keyGates, E.add(key, t.index(2 * K, 2)),
              E.ult(key, t.index(1, 2)));
    });
    t.asyncWait();
    tile::AsyncProxyFenceOp::create(b, loc); // copies, to the MMAs
    gpu::BarrierOp::create(b, loc);

    // S = Q K^T: keys K-major, core matrices of 8 keys 128 bytes apart,
    // the next 8 columns K 16 bytes on. Split: per k step q_lo k_hi, q_hi
    // k_lo, then q_hi k_hi (the keys' lo half from column DK).
    tile::WarpgroupFenceOp::create(b, loc);
    Value scores = zeroScores;
    bool first = true;
    auto product = [&](Value a, int64_t column) {
      Value desc = tile::WarpgroupDescriptorOp::create(
          b, loc, operands, E.idx(column * K), 0, K * 16, 128);
      scores = tile::WarpgroupMmaOp::create(b, loc, scoreType, a, desc, scores,
                                            TypeAttr::get(elem), nullptr,
                                            nullptr, b.getBoolAttr(!first));
      first = false;
    };
    for (int64_t k0 = 0; k0 < DK; k0 += 16) {
      Value qHi = qA[k0 / 16];
      if (split) {
        product(qA[(DK + k0) / 16], k0);
        product(qHi, DK + k0);
      }
      product(qHi, k0);
    }
    tile::WarpgroupCommitOp::create(b, loc);
    scores = tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{scores})
                 .getResult(0);
    return {scores, E.load(keyGates, {E.idx(2 * K)})};
  };
  auto shiftOf = [&](Value running) { return m.shiftOf(running); };
  auto rowMax = [&](Value x) { return m.rowMax(x, rowType); };
  // Ends a step: the accumulators rescaled from the maximum mOld to mNew,
  // plus P [V | 1]: P's 16 columns from k0 against [V | 1]'s rows k0 ..
  // k0 + 15, N-major: 8 rows of a core matrix 16 bytes apart, the next 8
  // rows 128 bytes on, the next 8 columns K 16 bytes on.
  auto endStep = [&](Value weights, Value out, Value mOld, Value mNew) {
    Value pTile = t.convert(weights, elem);
    if (mOld) {
      Value alpha = E.exp2Approx(E.sub(mOld, shiftOf(mNew)));
      out = E.mul(out, repeat(alpha, accType));
    }
    SmallVector<Value> pA;
    for (int64_t k0 = 0; k0 < K; k0 += 16)
      pA.push_back(tile::ToOperandOp::create(b, loc, m.operand(0, R, 16, elem),
                                             pTile, k0));
    tile::WarpgroupFenceOp::create(b, loc);
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      Value desc = tile::WarpgroupDescriptorOp::create(
          b, loc, operands, E.idx(valuesAt + k0 * L), 0, 128, K * 16);
      out = tile::WarpgroupMmaOp::create(b, loc, accType, pA[k0 / 16], desc,
                                         out, TypeAttr::get(elem), nullptr,
                                         b.getUnitAttr(), b.getBoolAttr(true));
    }
    tile::WarpgroupCommitOp::create(b, loc);
    return tile::WarpgroupWaitOp::create(b, loc, 0, ValueRange{out})
        .getResult(0);
  };

  // The diagonal step, keys [t0, t0 + K): masked, a log weight per score.
  // G_i - G_j = Gq_i - Gq_j = Gq_i - stepSum + sigma_j. (The log and the
  // exp flush subnormals: |q.k| below 2^-126 and weights below 2^-126 of
  // the row's largest weigh 0.)
  Value out, mDiagonal;
  {
    auto [scores, stepSum] = beginStep(t0, rows);
    Value rowPart =
        E.sub(giScaled, tile::SplatOp::create(b, loc, rowType, stepSum));
    Value logBase = repeat(rowPart, scoreType);
    if (gated)
      logBase = E.add(logBase, m.load(scoreType, keyGates, E.idx(0), 0));
    Value lw = E.fma(power, E.log2Flush(E.abs(scores)), logBase);
    Value inside =
        t.logicalAnd(E.cmpi(arith::CmpIPredicate::sle, colIndex, rowIndex),
                     E.cmpi(arith::CmpIPredicate::slt, colIndex, rowsI32));
    lw = E.select(inside, lw, scoreNegInf);
    mDiagonal = rowMax(lw);
    Value weights =
        E.exp2Flush(E.sub(lw, repeat(shiftOf(mDiagonal), scoreType)));
    out = endStep(weights, splatTo(accType, 0.0), Value(), mDiagonal);
  }
  // The steps before it, n = 1 .. x, keys [t0 - n K, + K): all inside T
  // and before every row, so no mask, and no log or exp per score: 2^lw =
  // u 2^rowPart_i, u = (q.k)^p 2^sigma_j, rowPart_i = Gq_i + carry, carry
  // the gates between the step and t0 (the sums of the steps after it).
  auto loop = E.forLoop(
      E.idx(1), E.add(x, E.idx(1)), E.idx(1), {out, mDiagonal, E.f32(0.0)},
      [&](Value n, ValueRange in) {
        auto [scores, stepSum] =
            beginStep(E.sub(t0, E.mul(n, E.idx(K))), Value());
        Value rowPart =
            E.add(giScaled, tile::SplatOp::create(b, loc, rowType, in[2]));
        Value u = E.power(E.mul(scores, scores), s.p / 2);
        if (gated) // else 2^sigma_j = 1
          u = E.mul(u, m.load(scoreType, keyGates, E.idx(K), 0));
        Value mOld = in[1];
        Value mNew = E.max(mOld, E.add(E.log2Approx(rowMax(u)), rowPart));
        Value rowWeight = E.exp2Approx(E.sub(rowPart, shiftOf(mNew)));
        Value weights = E.mul(u, repeat(rowWeight, scoreType));
        return SmallVector<Value>{endStep(weights, in[0], mOld, mNew), mNew,
                                  E.add(in[2], stepSum)};
      });

  // y = num / den (den: column EV; the columns after it are zeros).
  Value yTile = t.convert(m.normalizeRows(loop[0], EV, rowType), elem);
  m.store(yTile, y, E.add(tokenBase(t0, s.hq, hq, s.e), firstColumn),
          s.hq * s.e, rows, E.idx(EV));
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow
