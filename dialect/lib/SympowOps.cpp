//===- SympowOps.cpp - Operations of the sympow dialect -------------------===//
//
// Verifiers state SPEC's rules op by op. Shapes are written with SPEC's
// dimension names; see ShapeContract.h.
//
//===----------------------------------------------------------------------===//

#include "sympow/Dialect/SympowOps.h"

#include "ShapeContract.h"
#include "sympow/Dialect/SymmetricPower.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace sympow;

#define GET_OP_CLASSES
#include "sympow/Dialect/SympowOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

static LogicalResult verifyScale(Operation *op, double scale) {
  if (std::isfinite(scale) && scale > 0.0)
    return success();
  return op->emitOpError() << "scale must be a finite number > 0, got "
                           << scale;
}

/// Hq = g * H: every key/value head serves a whole group of query heads.
static LogicalResult verifyGroups(Operation *op, const ShapeContract &shapes,
                                  StringRef queryHeads, StringRef keyHeads) {
  std::optional<int64_t> hq = shapes.get(queryHeads);
  std::optional<int64_t> h = shapes.get(keyHeads);
  if (!hq || !h || (*h > 0 && *hq % *h == 0))
    return success();
  return op->emitOpError() << "the number of query heads " << queryHeads
                           << " = " << *hq
                           << " must be a multiple of the key/value heads "
                           << keyHeads << " = " << *h << " (GQA)";
}

static LogicalResult verifyRotaryDims(Operation *op, RotaryAttr rotary,
                                      const ShapeContract &shapes) {
  std::optional<int64_t> d = shapes.get("d");
  if (!rotary || !d || rotary.getDims() <= *d)
    return success();
  return op->emitOpError() << "rotary dims = " << rotary.getDims()
                           << " exceed the head dim d = " << *d;
}

/// Where both are present, the keys'/queries' element type is one of
/// bf16/f16/f32 and shared by the others.
static LogicalResult
verifyInputTypes(Operation *op, ArrayRef<std::pair<StringRef, Type>> ins) {
  if (failed(verifyElementClass(op, ins.front().first, ins.front().second,
                                ElementClass::Input)))
    return failure();
  for (auto [what, type] : ins.drop_front())
    if (failed(verifySameElementType(op, ins.front().first, ins.front().second,
                                     what, type)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LayerOp
//===----------------------------------------------------------------------===//

ScheduleKind LayerOp::getScheduleKind() {
  ScheduleAttr schedule = getScheduleAttr();
  return schedule ? schedule.getKind() : ScheduleKind::None;
}

GateKind LayerOp::getGateKind() {
  bool data = static_cast<bool>(getLogG());
  bool head = static_cast<bool>(getLogGamma());
  if (data && head)
    return GateKind::Both;
  if (data)
    return GateKind::Data;
  return head ? GateKind::Head : GateKind::None;
}

double LayerOp::getScaleOrDefault() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToDouble();
  int64_t d = getQ().getType().getShape().back();
  return 1.0 / std::sqrt(static_cast<double>(d));
}

/// The state pair (S [B, H, D, e], Z [B, H, D]) in f32; `prefix` names it
/// in messages ("" or "initial ", "result ", ...).
static LogicalResult verifyStatePair(ShapeContract &shapes, StringRef prefix,
                                     Type s, Type z) {
  if (failed(shapes.expect((prefix + "S").str(), s, {"B", "H", "D", "e"},
                           ElementClass::F32)) ||
      failed(shapes.expect((prefix + "Z").str(), z, {"B", "H", "D"},
                           ElementClass::F32)))
    return failure();
  return success();
}

/// The state (S, Z, c) at the start or end of a layer.
static LogicalResult verifyLayerState(Operation *op, ShapeContract &shapes,
                                      StringRef which, TypeRange types) {
  if (types.empty())
    return success();
  if (types.size() != 3)
    return op->emitOpError()
           << "the " << which << " state is (S, Z, c): 3 tensors, got "
           << types.size();
  std::string prefix = (which + " ").str();
  if (failed(verifyStatePair(shapes, prefix, types[0], types[1])) ||
      failed(shapes.expect(prefix + "c", types[2], {"B", "H"},
                           ElementClass::Count)))
    return failure();
  return success();
}

LogicalResult LayerOp::verify() {
  Operation *op = getOperation();
  int64_t p = getPower();
  if (failed(verifyPower(op, p)))
    return failure();
  if (getScale() && failed(verifyScale(op, getScale()->convertToDouble())))
    return failure();

  ShapeContract shapes(op);
  if (failed(shapes.expect("q", getQ().getType(), {"B", "T", "Hq", "d"})) ||
      failed(shapes.expect("k", getK().getType(), {"B", "T", "H", "d"})) ||
      failed(shapes.expect("v", getV().getType(), {"B", "T", "H", "e"})) ||
      failed(shapes.expect("y", getY().getType(), {"B", "T", "Hq", "e"})) ||
      failed(shapes.requireStatic({"d", "e"})) ||
      failed(verifyGroups(op, shapes, "Hq", "H")))
    return failure();
  if (failed(verifyInputTypes(op, {{"q", getQ().getType()},
                                   {"k", getK().getType()},
                                   {"v", getV().getType()}})) ||
      failed(verifySameElementType(op, "v", getV().getType(), "y",
                                   getY().getType())))
    return failure();

  if (Value logG = getLogG())
    if (failed(shapes.expect("log_g", logG.getType(), {"B", "T", "H"},
                             ElementClass::F32)))
      return failure();
  if (Value logGamma = getLogGamma())
    if (failed(shapes.expect("log_gamma", logGamma.getType(), {"H"},
                             ElementClass::F32)))
      return failure();
  if (Value beta = getBeta())
    if (failed(shapes.expect("beta", beta.getType(), {"B", "T", "H"},
                             ElementClass::F32)))
      return failure();

  // Rotary configuration and schedule.
  ScheduleKind schedule = getScheduleKind();
  RotaryAttr rotary = getRotaryAttr();
  StringRef scheduleName = stringifyScheduleKind(schedule);
  if (schedule != ScheduleKind::None && !rotary)
    return emitOpError() << "schedule '" << scheduleName
                         << "' rotates q and k: it needs a rotary "
                            "configuration (rotary = <dims = R, ...>)";
  if (schedule == ScheduleKind::None && rotary)
    return emitOpError() << "a rotary configuration needs a schedule other "
                            "than 'none' (uniform, learned, warped or blend)";
  if (failed(verifyRotaryDims(op, rotary, shapes)))
    return failure();
  if (getBeta() && schedule != ScheduleKind::Learned)
    return emitOpError() << "beta (the learned rotation rate) is only used by "
                            "the 'learned' schedule, not '"
                         << scheduleName << "'";
  if (!getBeta() && schedule == ScheduleKind::Learned)
    return emitOpError() << "schedule 'learned' needs beta [B, T, H]";

  FormulationAttr formulation = getFormulationAttr();
  if (getScheduleAttr() && getScheduleAttr().isRelativeOnly()) {
    if (formulation && formulation.getKind() != FormulationKind::Attention)
      return emitOpError()
             << "schedule '" << scheduleName
             << "' has no recurrent form: only the attention formulation "
                "computes it, not '"
             << stringifyFormulationKind(formulation.getKind()) << "'";
    if (hasInitialState() || hasFinalState())
      return emitOpError() << "schedule '" << scheduleName
                           << "' has no state: it takes no initial state and "
                              "returns no final state";
  }

  // States live in the embedding space of size D = C(d + p - 1, p).
  if (failed(bindEmbeddingDim(shapes, p)) ||
      failed(verifyLayerState(op, shapes, "initial",
                              getInitialState().getTypes())) ||
      failed(verifyLayerState(op, shapes, "final", getFinalState().getTypes())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// EmbedOp
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  int64_t p = getPower();
  if (failed(verifyPower(*this, p)))
    return failure();
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.getRank() < 1 || input.getRank() != result.getRank())
    return emitOpError() << "input and result must have the same rank >= 1, "
                         << "got " << input << " and " << result;
  if (failed(verifyElementClass(*this, "input", input, ElementClass::Input)) ||
      failed(verifySameElementType(*this, "input", input, "result", result)))
    return failure();
  for (int64_t i = 0, e = input.getRank() - 1; i < e; ++i)
    if (!ShapedType::isDynamic(input.getDimSize(i)) &&
        !ShapedType::isDynamic(result.getDimSize(i)) &&
        input.getDimSize(i) != result.getDimSize(i))
      return emitOpError() << "result dim " << i << " is "
                           << result.getDimSize(i) << ", but input dim " << i
                           << " is " << input.getDimSize(i)
                           << ": only the last dim changes (d -> D)";
  int64_t d = input.getShape().back();
  int64_t dim = result.getShape().back();
  if (ShapedType::isDynamic(d) || ShapedType::isDynamic(dim))
    return emitOpError() << "the last dims (d and D) must be static";
  std::optional<int64_t> expected = symmetricPowerDim(d, p);
  if (!expected || *expected != dim)
    return emitOpError() << "phi^" << p << " of d = " << d << " has D = C("
                         << d + p - 1 << ", " << p << ") = "
                         << (expected ? std::to_string(*expected)
                                      : std::string("(overflow)"))
                         << " coordinates, but the result has " << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// RotateOp and AngleCountOp
//===----------------------------------------------------------------------===//

LogicalResult RotateOp::verify() {
  ShapeContract shapes(*this);
  if (failed(shapes.expect("input", getInput().getType(), {"B", "T", "Hx", "d"},
                           ElementClass::Input)) ||
      failed(shapes.expect("counts", getCounts().getType(), {"B", "T", "Hc"},
                           ElementClass::Count)) ||
      failed(shapes.requireStatic({"d"})) ||
      failed(verifyGroups(*this, shapes, "Hx", "Hc")) ||
      failed(verifyRotaryDims(*this, getRotary(), shapes)))
    return failure();
  if (getInput().getType() != getResult().getType())
    return emitOpError() << "result must have the input's type "
                         << getInput().getType() << ", got "
                         << getResult().getType();
  return success();
}

LogicalResult AngleCountOp::verify() {
  ScheduleKind kind = getSchedule().getKind();
  if (kind != ScheduleKind::Uniform && kind != ScheduleKind::Learned)
    return emitOpError()
           << "only the uniform and learned schedules have an angle count; '"
           << stringifyScheduleKind(kind)
           << (kind == ScheduleKind::None ? "' does not rotate"
                                          : "' depends on the age i - j only");
  if (kind == ScheduleKind::Learned && !getBeta())
    return emitOpError() << "schedule 'learned' needs beta [B, T, H]";
  if (kind == ScheduleKind::Uniform && getBeta())
    return emitOpError() << "schedule 'uniform' takes no beta";
  ShapeContract shapes(*this);
  if (Value beta = getBeta())
    if (failed(shapes.expect("beta", beta.getType(), {"B", "T", "H"},
                             ElementClass::F32)))
      return failure();
  if (Value initial = getInitial())
    if (failed(shapes.expect("initial", initial.getType(), {"B", "H"},
                             ElementClass::Count)))
      return failure();
  if (failed(shapes.expect("result", getResult().getType(), {"B", "T", "H"})))
    return failure();
  if (!getResult().getType().getElementType().isF64())
    return emitOpError() << "'result' must have element type f64 (angles "
                            "within 1e-5 rad at 64K tokens), got "
                         << getResult().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// State ops
//===----------------------------------------------------------------------===//

LogicalResult StateUpdateOp::verify() {
  int64_t p = getPower();
  if (failed(verifyPower(*this, p)))
    return failure();
  if (static_cast<bool>(getStateS()) != static_cast<bool>(getStateZ()))
    return emitOpError() << "the state is (S, Z): give both or neither";
  ShapeContract shapes(*this);
  if (failed(
          shapes.expect("keys", getKeys().getType(), {"B", "C", "H", "d"})) ||
      failed(shapes.expect("values", getValues().getType(),
                           {"B", "C", "H", "e"})) ||
      failed(shapes.requireStatic({"d", "e"})) ||
      failed(verifyInputTypes(*this, {{"keys", getKeys().getType()},
                                      {"values", getValues().getType()}})))
    return failure();
  if (Value logG = getLogG())
    if (failed(shapes.expect("log_g", logG.getType(), {"B", "C", "H"},
                             ElementClass::F32)))
      return failure();
  if (failed(bindEmbeddingDim(shapes, p)))
    return failure();
  if (getStateS() && failed(verifyStatePair(shapes, "", getStateS().getType(),
                                            getStateZ().getType())))
    return failure();
  return verifyStatePair(shapes, "result ", getResultS().getType(),
                         getResultZ().getType());
}

LogicalResult StateQueryOp::verify() {
  int64_t p = getPower();
  if (failed(verifyPower(*this, p)) ||
      failed(verifyScale(*this, getScale().convertToDouble())))
    return failure();
  ShapeContract shapes(*this);
  if (failed(shapes.expect("queries", getQueries().getType(),
                           {"B", "C", "Hq", "d"}, ElementClass::Input)) ||
      failed(bindEmbeddingDim(shapes, p)) ||
      failed(verifyStatePair(shapes, "", getStateS().getType(),
                             getStateZ().getType())) ||
      failed(shapes.requireStatic({"d", "e"})) ||
      failed(verifyGroups(*this, shapes, "Hq", "H")))
    return failure();
  if (Value logG = getLogG())
    if (failed(shapes.expect("log_g", logG.getType(), {"B", "C", "H"},
                             ElementClass::F32)))
      return failure();
  if (failed(shapes.expect("numerator", getNumerator().getType(),
                           {"B", "C", "Hq", "e"}, ElementClass::F32)) ||
      failed(shapes.expect("denominator", getDenominator().getType(),
                           {"B", "C", "Hq"}, ElementClass::F32)))
    return failure();
  return success();
}

LogicalResult DiscountedScanOp::verify() {
  auto deltas = getDeltas().getType();
  if (deltas.getRank() < 3)
    return emitOpError() << "'deltas' must be a tensor of shape [B, N, H, ...]"
                         << ", got " << deltas;
  // The state's own dims (D, e for S; D for Z) are named by position.
  SmallVector<std::string> stateDims;
  for (int64_t i = 3; i < deltas.getRank(); ++i)
    stateDims.push_back("state dim " + std::to_string(i - 3));
  SmallVector<StringRef> deltaNames = {"B", "N", "H"};
  SmallVector<StringRef> initialNames = {"B", "H"};
  for (const std::string &name : stateDims) {
    deltaNames.push_back(name);
    initialNames.push_back(name);
  }
  ShapeContract shapes(*this);
  if (failed(shapes.expect("deltas", deltas, deltaNames, ElementClass::F32)) ||
      failed(shapes.expect("log_decay", getLogDecay().getType(),
                           {"B", "N", "H"}, ElementClass::F32)) ||
      failed(shapes.expect("initial", getInitial().getType(), initialNames,
                           ElementClass::F32)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionBlockOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionBlockOp::verify() {
  int64_t p = getPower();
  if (failed(verifyPower(*this, p)) ||
      failed(verifyScale(*this, getScale().convertToDouble())))
    return failure();
  ShapeContract shapes(*this);
  if (failed(shapes.expect("queries", getQueries().getType(),
                           {"B", "Cq", "Hq", "d"})) ||
      failed(
          shapes.expect("keys", getKeys().getType(), {"B", "Ck", "H", "d"})) ||
      failed(shapes.expect("values", getValues().getType(),
                           {"B", "Ck", "H", "e"})) ||
      failed(shapes.requireStatic({"d", "e"})) ||
      failed(verifyGroups(*this, shapes, "Hq", "H")) ||
      failed(verifyInputTypes(*this, {{"queries", getQueries().getType()},
                                      {"keys", getKeys().getType()},
                                      {"values", getValues().getType()}})))
    return failure();
  std::optional<int64_t> cq = shapes.get("Cq"), ck = shapes.get("Ck");
  if (cq && ck && *cq > *ck)
    return emitOpError() << "a causal block has at most as many queries as "
                            "keys, got Cq = "
                         << *cq << " > Ck = " << *ck;
  if (Value logG = getLogG())
    if (failed(shapes.expect("log_g", logG.getType(), {"B", "Ck", "H"},
                             ElementClass::F32)))
      return failure();

  // Only the relative-only schedules rotate inside the block.
  ScheduleAttr schedule = getScheduleAttr();
  if (schedule && !schedule.isRelativeOnly())
    return emitOpError() << "only the warped and blend schedules rotate "
                            "inside an attention block; rotate q and k for '"
                         << stringifyScheduleKind(schedule.getKind())
                         << "' with sympow.rotate";
  if (static_cast<bool>(schedule) != static_cast<bool>(getRotaryAttr()))
    return emitOpError() << "rotary and schedule come together: a relative "
                            "rotation needs both";
  if (failed(verifyRotaryDims(*this, getRotaryAttr(), shapes)))
    return failure();
  if (failed(shapes.expect("numerator", getNumerator().getType(),
                           {"B", "Cq", "Hq", "e"}, ElementClass::F32)) ||
      failed(shapes.expect("denominator", getDenominator().getType(),
                           {"B", "Cq", "Hq"}, ElementClass::F32)) ||
      failed(shapes.expect("log_max", getLogMax().getType(), {"B", "Cq", "Hq"},
                           ElementClass::F32)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// CombineOp
//===----------------------------------------------------------------------===//

LogicalResult CombineOp::verify() {
  TypeRange block = getBlock().getTypes(), state = getState().getTypes();
  if (block.empty() && state.empty())
    return emitOpError() << "needs a block part, a state part or both";
  if (!block.empty() && block.size() != 3)
    return emitOpError() << "the block part is (numerator, denominator, "
                            "log_max): 3 tensors, got "
                         << block.size();
  if (!state.empty() && state.size() != 2)
    return emitOpError() << "the state part is (numerator, denominator): 2 "
                            "tensors, got "
                         << state.size();
  ShapeContract shapes(*this);
  if (!block.empty() &&
      (failed(shapes.expect("block numerator", block[0], {"B", "C", "Hq", "e"},
                            ElementClass::F32)) ||
       failed(shapes.expect("block denominator", block[1], {"B", "C", "Hq"},
                            ElementClass::F32)) ||
       failed(shapes.expect("block log_max", block[2], {"B", "C", "Hq"},
                            ElementClass::F32))))
    return failure();
  if (!state.empty() &&
      (failed(shapes.expect("state numerator", state[0], {"B", "C", "Hq", "e"},
                            ElementClass::F32)) ||
       failed(shapes.expect("state denominator", state[1], {"B", "C", "Hq"},
                            ElementClass::F32))))
    return failure();
  return shapes.expect("result", getResult().getType(), {"B", "C", "Hq", "e"},
                       ElementClass::Input);
}
