//===- DecomposeLayer.cpp - sympow.layer into the dialect's pieces --------===//
//
// The rewrite of each formulation is described in TransformsPasses.td. The
// pieces it emits carry SPEC's shapes, so their verifiers re-check every
// step of the decomposition.
//
//===----------------------------------------------------------------------===//

#include "TensorBuilder.h"

#include "sympow/Compiler/Passes.h"
#include "sympow/Dialect/SymmetricPower.h"
#include "sympow/Dialect/SympowOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWDECOMPOSELAYER
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;
using namespace sympow;

namespace {

/// The parts of a layer's output for one block of queries.
struct BlockParts {
  SmallVector<Value, 3> block; // numerator, denominator, log_max
  SmallVector<Value, 2> state; // numerator, denominator
};

class LayerDecomposer {
public:
  LayerDecomposer(LayerOp layer, ImplicitLocOpBuilder &b)
      : layer(layer), b(b), tb(b) {}

  LogicalResult run();

private:
  // Shared pieces.
  Value totalGate();
  Value angleCounts();
  Value uniformCounts();
  Value finalCount(Value counts);
  Value rotate(Value x, Value counts);

  // The pieces' result types for `batch` entries of `tokens` tokens.
  RankedTensorType numeratorType(OpFoldResult batch, OpFoldResult tokens);
  RankedTensorType rowType(OpFoldResult batch, OpFoldResult tokens);
  RankedTensorType stateSType(OpFoldResult batch);
  RankedTensorType stateZType(OpFoldResult batch);

  BlockParts attentionBlock(Value q, Value k, Value v, Value gate);
  SmallVector<Value, 2> stateQuery(Value q, Value gate, Value s, Value z);
  SmallVector<Value, 2> stateUpdate(Value k, Value v, Value gate, Value s,
                                    Value z);
  Value combine(const BlockParts &parts, OpFoldResult batch,
                OpFoldResult tokens);
  std::pair<Value, Value> initialOrZeroState();

  // One per formulation: fills `results` (y, then S, Z, c if asked for).
  void attention(Value q, Value k, Value gate, SmallVectorImpl<Value> &results);
  void chunked(int64_t chunkSize, Value q, Value k, Value gate,
               SmallVectorImpl<Value> &results);
  void recurrent(Value q, Value k, Value gate, SmallVectorImpl<Value> &results);

  LayerOp layer;
  ImplicitLocOpBuilder &b;
  TensorBuilder tb;
  int64_t power = 0;
  int64_t embeddingDim = 0;
  FloatAttr scale;
  OpFoldResult batch, seqLen;
  Value counts; // f64 angle counts [B, T, H], null without a rotation
};

LogicalResult LayerDecomposer::run() {
  FormulationAttr formulation = layer.getFormulationAttr();
  if (!formulation)
    return layer.emitOpError()
           << "has no formulation to decompose: run "
              "--sympow-select-formulation first or write one";
  power = layer.getPower();
  int64_t d = layer.getQ().getType().getShape()[3];
  std::optional<int64_t> dim = symmetricPowerDim(d, power);
  if (!dim)
    return layer.emitOpError() << "phi^" << power << " of d = " << d
                               << " has too many coordinates to represent";
  embeddingDim = *dim;
  scale = b.getF64FloatAttr(layer.getScaleOrDefault());
  batch = tb.dim(layer.getQ(), 0);
  seqLen = tb.dim(layer.getQ(), 1);

  Value gate = totalGate();
  counts = angleCounts();
  Value q = rotate(layer.getQ(), counts);
  Value k = rotate(layer.getK(), counts);

  SmallVector<Value> results;
  switch (formulation.getKind()) {
  case FormulationKind::Attention:
    attention(q, k, gate, results);
    break;
  case FormulationKind::Chunked:
    chunked(*formulation.getChunk(), q, k, gate, results);
    break;
  case FormulationKind::Recurrent:
    recurrent(q, k, gate, results);
    break;
  }
  layer.replaceAllUsesWith(results);
  layer.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Gates and rotations
//===----------------------------------------------------------------------===//

/// log_g + log_gamma broadcast over [B, T, H]; null when there is no gate.
Value LayerDecomposer::totalGate() {
  Value logG = layer.getLogG(), logGamma = layer.getLogGamma();
  if (!logGamma)
    return logG;
  Sizes sizes = {batch, seqLen, tb.dim(layer.getK(), 2)};
  Type f32 = b.getF32Type();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap perHead = AffineMap::get(3, 0, {getAffineDimExpr(2, ctx)}, ctx);
  SmallVector<Value> inputs = {logGamma};
  SmallVector<AffineMap> maps = {perHead};
  if (logG) {
    inputs.push_back(logG);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{TensorBuilder::type(sizes, f32)}, inputs,
      ValueRange{tb.empty(sizes, f32)}, maps, parallel,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value sum = args[0];
        if (args.size() == 3)
          sum = arith::AddFOp::create(nb, loc, args[0], args[1]);
        linalg::YieldOp::create(nb, loc, sum);
      });
  return generic.getResult(0);
}

/// The angle count c_t of every token, f64; null when nothing rotates or
/// the rotation is relative (warped, blend: the attention block does it).
Value LayerDecomposer::angleCounts() {
  ScheduleKind kind = layer.getScheduleKind();
  if (kind == ScheduleKind::Uniform)
    return uniformCounts();
  if (kind != ScheduleKind::Learned)
    return nullptr;
  Value initial =
      layer.hasInitialState() ? layer.getInitialState()[2] : Value();
  Sizes sizes = {batch, seqLen, tb.dim(layer.getK(), 2)};
  return AngleCountOp::create(b, TensorBuilder::type(sizes, b.getF64Type()),
                              layer.getBeta(), initial,
                              layer.getScheduleAttr());
}

/// c_t = c_0 + t + 1.
Value LayerDecomposer::uniformCounts() {
  Sizes sizes = {batch, seqLen, tb.dim(layer.getK(), 2)};
  Type f64 = b.getF64Type();
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (layer.hasInitialState()) {
    inputs.push_back(tb.convert(layer.getInitialState()[2], f64));
    maps.push_back(AffineMap::get(
        3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(2, ctx)}, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(3, ctx));
  SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{TensorBuilder::type(sizes, f64)}, inputs,
      ValueRange{tb.empty(sizes, f64)}, maps, parallel,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value t = linalg::IndexOp::create(nb, loc, 1);
        Value t64 = arith::IndexCastOp::create(nb, loc, nb.getI64Type(), t);
        Value count = arith::SIToFPOp::create(nb, loc, f64, t64);
        Value one = arith::ConstantOp::create(nb, loc, nb.getF64FloatAttr(1));
        count = arith::AddFOp::create(nb, loc, count, one);
        if (args.size() == 2)
          count = arith::AddFOp::create(nb, loc, count, args[0]);
        linalg::YieldOp::create(nb, loc, count);
      });
  return generic.getResult(0);
}

Value LayerDecomposer::rotate(Value x, Value counts) {
  if (!counts)
    return x;
  return RotateOp::create(b, x.getType(), x, counts, layer.getRotaryAttr());
}

/// c after the last token (or c_0, or zero, when nothing rotates).
Value LayerDecomposer::finalCount(Value counts) {
  auto type = cast<RankedTensorType>(layer.getFinalState()[2].getType());
  if (!counts) {
    if (layer.hasInitialState())
      return tb.convert(layer.getInitialState()[2], type.getElementType());
    return tb.zeros({batch, tb.dim(layer.getK(), 2)}, type.getElementType());
  }
  // counts[:, T - 1, :] as [B, H].
  Sizes offsets = {tb.constant(0), tb.sub(seqLen, tb.constant(1)),
                   tb.constant(0)};
  Sizes sizes = {batch, tb.constant(1), tb.dim(counts, 2)};
  Sizes strides(3, tb.constant(1));
  auto last = RankedTensorType::get({type.getDimSize(0), type.getDimSize(1)},
                                    b.getF64Type());
  Value slice =
      tensor::ExtractSliceOp::create(b, last, counts, offsets, sizes, strides);
  return tb.convert(slice, type.getElementType());
}

//===----------------------------------------------------------------------===//
// Pieces
//===----------------------------------------------------------------------===//

RankedTensorType LayerDecomposer::numeratorType(OpFoldResult batch,
                                                OpFoldResult tokens) {
  return TensorBuilder::type(
      {batch, tokens, tb.dim(layer.getQ(), 2), tb.dim(layer.getV(), 3)},
      b.getF32Type());
}

RankedTensorType LayerDecomposer::rowType(OpFoldResult batch,
                                          OpFoldResult tokens) {
  return TensorBuilder::type({batch, tokens, tb.dim(layer.getQ(), 2)},
                             b.getF32Type());
}

RankedTensorType LayerDecomposer::stateSType(OpFoldResult batch) {
  return TensorBuilder::type({batch, tb.dim(layer.getK(), 2),
                              tb.constant(embeddingDim),
                              tb.dim(layer.getV(), 3)},
                             b.getF32Type());
}

RankedTensorType LayerDecomposer::stateZType(OpFoldResult batch) {
  return TensorBuilder::type(
      {batch, tb.dim(layer.getK(), 2), tb.constant(embeddingDim)},
      b.getF32Type());
}

BlockParts LayerDecomposer::attentionBlock(Value q, Value k, Value v,
                                           Value gate) {
  OpFoldResult rows = tb.dim(q, 0), tokens = tb.dim(q, 1);
  ScheduleAttr schedule = layer.getScheduleAttr();
  bool relative = schedule && schedule.isRelativeOnly();
  auto op = AttentionBlockOp::create(
      b, numeratorType(rows, tokens), rowType(rows, tokens),
      rowType(rows, tokens), q, k, v, gate, b.getI64IntegerAttr(power), scale,
      relative ? layer.getRotaryAttr() : RotaryAttr(),
      relative ? schedule : ScheduleAttr());
  BlockParts parts;
  parts.block = {op.getNumerator(), op.getDenominator(), op.getLogMax()};
  return parts;
}

SmallVector<Value, 2> LayerDecomposer::stateQuery(Value q, Value gate, Value s,
                                                  Value z) {
  OpFoldResult rows = tb.dim(q, 0), tokens = tb.dim(q, 1);
  auto op = StateQueryOp::create(b, numeratorType(rows, tokens),
                                 rowType(rows, tokens), q, gate, s, z,
                                 b.getI64IntegerAttr(power), scale);
  return {op.getNumerator(), op.getDenominator()};
}

SmallVector<Value, 2> LayerDecomposer::stateUpdate(Value k, Value v, Value gate,
                                                   Value s, Value z) {
  OpFoldResult rows = tb.dim(k, 0);
  auto op = StateUpdateOp::create(b, stateSType(rows), stateZType(rows), k, v,
                                  gate, s, z, b.getI64IntegerAttr(power));
  return {op.getResultS(), op.getResultZ()};
}

Value LayerDecomposer::combine(const BlockParts &parts, OpFoldResult batch,
                               OpFoldResult tokens) {
  Type element = layer.getY().getType().getElementType();
  RankedTensorType type = numeratorType(batch, tokens).clone(element);
  return CombineOp::create(b, type, parts.block, parts.state);
}

std::pair<Value, Value> LayerDecomposer::initialOrZeroState() {
  if (layer.hasInitialState())
    return {layer.getInitialState()[0], layer.getInitialState()[1]};
  Type f32 = b.getF32Type();
  Sizes s = {batch, tb.dim(layer.getK(), 2), tb.constant(embeddingDim),
             tb.dim(layer.getV(), 3)};
  Sizes z = {batch, tb.dim(layer.getK(), 2), tb.constant(embeddingDim)};
  return {tb.zeros(s, f32), tb.zeros(z, f32)};
}

//===----------------------------------------------------------------------===//
// Formulations
//===----------------------------------------------------------------------===//

void LayerDecomposer::attention(Value q, Value k, Value gate,
                                SmallVectorImpl<Value> &results) {
  Value v = layer.getV();
  BlockParts parts = attentionBlock(q, k, v, gate);
  if (layer.hasInitialState())
    parts.state = stateQuery(q, gate, layer.getInitialState()[0],
                             layer.getInitialState()[1]);
  results.push_back(combine(parts, batch, seqLen));
  if (!layer.hasFinalState())
    return;
  Value s, z;
  if (layer.hasInitialState()) {
    s = layer.getInitialState()[0];
    z = layer.getInitialState()[1];
  }
  SmallVector<Value, 2> state = stateUpdate(k, v, gate, s, z);
  results.append({state[0], state[1], finalCount(counts)});
}

void LayerDecomposer::chunked(int64_t chunkSize, Value q, Value k, Value gate,
                              SmallVectorImpl<Value> &results) {
  OpFoldResult chunks = tb.ceilDiv(seqLen, tb.constant(chunkSize));
  OpFoldResult padded = tb.mul(chunks, tb.constant(chunkSize));
  // Zero tokens contribute nothing: phi(0) = 0, and a zero log gate does
  // not decay. Padded queries give y = 0 and are sliced away.
  auto toChunks = [&](Value x) {
    return x ? tb.splitChunks(tb.padTokens(x, padded), batch, chunks, chunkSize)
             : Value();
  };
  Value qc = toChunks(q);
  Value kc = toChunks(k);
  Value vc = toChunks(layer.getV());
  Value gc = toChunks(gate);
  OpFoldResult rows = tb.dim(qc, 0);

  // Each chunk's own contribution, then the states before every chunk.
  SmallVector<Value, 2> own = stateUpdate(kc, vc, gc, Value(), Value());
  Sizes decaySizes = {rows, tb.dim(kc, 2)};
  Value decay = tb.zeros(decaySizes, b.getF32Type());
  if (gc)
    decay = linalg::ReduceOp::create(
                b, ValueRange{gc}, ValueRange{decay}, /*dimensions=*/{1},
                [](OpBuilder &nb, Location loc, ValueRange args) {
                  Value sum = arith::AddFOp::create(nb, loc, args[0], args[1]);
                  linalg::YieldOp::create(nb, loc, sum);
                })
                .getResult(0);
  decay = tb.unflattenBatch(decay, batch, chunks);
  auto [s0, z0] = initialOrZeroState();
  auto scan = [&](Value own, Value initial) {
    Value deltas = tb.unflattenBatch(own, batch, chunks);
    return DiscountedScanOp::create(b, deltas.getType(), initial.getType(),
                                    deltas, decay, initial);
  };
  DiscountedScanOp scanS = scan(own[0], s0), scanZ = scan(own[1], z0);

  // Every chunk's queries: inside the chunk, and against the state before it.
  BlockParts parts = attentionBlock(qc, kc, vc, gc);
  parts.state = stateQuery(qc, gc, tb.flattenBatch(scanS.getPrefix()),
                           tb.flattenBatch(scanZ.getPrefix()));
  Value y = combine(parts, rows, tb.constant(chunkSize));
  // [B*N, C, Hq, e] -> [B, N*C, Hq, e] -> the first T tokens.
  y = tb.unflattenBatch(y, batch, chunks);
  y = tensor::CollapseShapeOp::create(
      b, y, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  y = tb.sliceTokens(y, tb.constant(0), seqLen);
  if (y.getType() != layer.getY().getType())
    y = tensor::CastOp::create(b, layer.getY().getType(), y);
  results.push_back(y);
  if (layer.hasFinalState())
    results.append(
        {Value(scanS.getFinal()), Value(scanZ.getFinal()), finalCount(counts)});
}

void LayerDecomposer::recurrent(Value q, Value k, Value gate,
                                SmallVectorImpl<Value> &results) {
  auto [s0, z0] = initialOrZeroState();
  // Sizes come from the operands: the layer's results are being replaced.
  Value y0 = tb.empty(
      {batch, seqLen, tb.dim(layer.getQ(), 2), tb.dim(layer.getV(), 3)},
      layer.getY().getType().getElementType());
  Value zero = tb.toValue(tb.constant(0)), one = tb.toValue(tb.constant(1));
  auto loop = scf::ForOp::create(
      b, zero, tb.toValue(seqLen), one, ValueRange{s0, z0, y0},
      [&](OpBuilder &nb, Location loc, Value t, ValueRange state) {
        ImplicitLocOpBuilder ib(loc, nb);
        LayerDecomposer step(layer, ib);
        step.power = power;
        step.embeddingDim = embeddingDim;
        step.scale = scale;
        OpFoldResult tOfr = t, oneOfr = step.tb.constant(1);
        auto token = [&](Value x) {
          return x ? step.tb.sliceTokens(x, tOfr, oneOfr) : Value();
        };
        // Slices in a fixed order (not argument evaluation order), so the
        // IR is the same with every compiler.
        Value qt = token(q), kt = token(k), vt = token(layer.getV()),
              gt = token(gate);
        // S_t includes token t: update first, then query without decay.
        SmallVector<Value, 2> next =
            step.stateUpdate(kt, vt, gt, state[0], state[1]);
        BlockParts parts;
        parts.state = step.stateQuery(qt, Value(), next[0], next[1]);
        Value yt = step.combine(parts, batch, oneOfr);
        Value y = step.tb.insertTokens(yt, state[2], tOfr);
        scf::YieldOp::create(ib, ValueRange{next[0], next[1], y});
      });
  results.push_back(loop.getResult(2));
  if (layer.hasFinalState())
    results.append({loop.getResult(0), loop.getResult(1), finalCount(counts)});
}

struct DecomposeLayerPass
    : sympow::impl::SympowDecomposeLayerBase<DecomposeLayerPass> {
  void runOnOperation() override {
    SmallVector<LayerOp> layers;
    getOperation()->walk([&](LayerOp layer) { layers.push_back(layer); });
    for (LayerOp layer : layers) {
      ImplicitLocOpBuilder b(layer.getLoc(), layer);
      if (failed(LayerDecomposer(layer, b).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
