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
#include "KeySteps.h"
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
                    P = AttentionTile::kThreads;
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

  // q row-major (stride QS); a step's keys and values in the canonical
  // layout (KeySteps.h).
  gpu_detail::RunCopies copies(t, batch, T);
  copies.copy(copies.rowMajor(q, s.hq, hq, R, QK, operands, QS), t0, rows);
  gpu_detail::RunCopies::Plan keyCopies =
      copies.canonical(k, s.h, h, K, QK, operands, 0);
  gpu_detail::RunCopies::Plan valueCopies =
      copies.canonical(v, s.h, h, K, EV, operands, valuesAt, firstColumn, s.e);

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
  // past T weigh 0, their values are copied as zeros).
  copies.storeOnesColumn(operands, valuesAt, K, EV, elem);

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
    copies.copy(keyCopies, kt, count);
    copies.copy(valueCopies, kt, count);
    gpu_detail::storeKeyStepGates(t, keyGates, K, [&](int64_t perThread) {
      return gatesOf(kt, count ? count : E.idx(K), perThread);
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
      Value desc = gpu_detail::keysDescriptor(t, operands, 0, K, column);
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
      Value desc = gpu_detail::valuesDescriptor(t, operands, valuesAt, K, k0);
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
