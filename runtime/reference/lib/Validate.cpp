//===- Validate.cpp - Checking a layer call before running it -------------===//

#include "sympow/Reference/Validate.h"
#include "sympow/Support/LayerRules.h"

#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Rounding.h"

#include <cmath>
#include <sstream>

namespace sympow::reference {

static std::string str(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

static std::string shapeStr(const std::vector<int64_t> &shape) {
  return Tensor(shape, {}).shapeString();
}

/// Multiplies positive sizes, failing on overflow past 2^62.
static bool mulFits(std::vector<int64_t> sizes) {
  unsigned __int128 acc = 1;
  for (int64_t s : sizes) {
    acc *= static_cast<unsigned __int128>(s < 0 ? 0 : s);
    if (acc > (static_cast<unsigned __int128>(1) << 62))
      return false;
  }
  return true;
}

Result<Shape> inferShape(const LayerInputs &in) {
  const char *names[] = {"q", "k", "v"};
  const Tensor *ts[] = {&in.q, &in.k, &in.v};
  const char *dims[] = {"[B, T, Hq, d]", "[B, T, H, d]", "[B, T, H, e]"};
  for (int i = 0; i < 3; ++i)
    if (ts[i]->shape.size() != 4)
      return Status::error(std::string(names[i]) + " must be 4-D " + dims[i] +
                           ", got shape " + ts[i]->shapeString());
  Shape s;
  s.B = in.q.shape[0];
  s.T = in.q.shape[1];
  s.Hq = in.q.shape[2];
  s.d = in.q.shape[3];
  s.H = in.k.shape[2];
  s.e = in.v.shape[3];
  std::vector<int64_t> kWant = {s.B, s.T, s.H, s.d};
  if (in.k.shape != kWant)
    return Status::error("k has shape " + in.k.shapeString() +
                         " but q [B, T, Hq, d] = " + in.q.shapeString() +
                         " needs k [B, T, H, d] = " + shapeStr(kWant));
  if (in.v.shape[0] != s.B || in.v.shape[1] != s.T || in.v.shape[2] != s.H)
    return Status::error(
        "v has shape " + in.v.shapeString() +
        " but q and k need v [B, T, H, e] with B = " + std::to_string(s.B) +
        ", T = " + std::to_string(s.T) + ", H = " + std::to_string(s.H));
  return s;
}

static Status checkShape(const LayerDesc &desc) {
  const Shape &s = desc.shape;
  struct {
    const char *name;
    int64_t value;
    int64_t min;
  } sizes[] = {{"B", s.B, 1}, {"T", s.T, 0}, {"Hq", s.Hq, 1},
               {"H", s.H, 1}, {"d", s.d, 1}, {"e", s.e, 1}};
  for (auto &sz : sizes)
    if (sz.value < sz.min)
      return Status::error(std::string("shape ") + sz.name + " = " +
                           std::to_string(sz.value) +
                           " must be >= " + std::to_string(sz.min));
  if (s.Hq % s.H != 0)
    return Status::error(
        "query heads Hq = " + std::to_string(s.Hq) +
        " is not a multiple of key/value heads H = " + std::to_string(s.H) +
        " (GQA needs Hq = g * H for an integer g)");
  if (!mulFits({s.B, s.T, s.Hq, s.d}) || !mulFits({s.B, s.T, s.Hq, s.e}))
    return Status::error("shape is too large: B*T*Hq*max(d, e) overflows");
  return Status::success();
}

static Status checkRotary(const LayerDesc &desc) {
  const RotaryConfig &r = desc.rotary;
  if (rules::Problem why = rules::checkRopeBase(r.base))
    return Status::error("rotary base = " + str(r.base) + " " + *why);
  if (rules::Problem why = rules::checkRopeScale(r.rateScale))
    return Status::error("rotary rate_scale = " + str(r.rateScale) + " " +
                         *why);
  if (r.dims != 0)
    if (rules::Problem why = rules::checkRopeDims(r.dims, desc.shape.d))
      return Status::error("rotary dims r = " + std::to_string(r.dims) + " " +
                           *why + " (0 means d)");
  if (r.dims == 0 && desc.shape.d % 2 && desc.schedule != Schedule::None)
    return Status::error(
        "rotary dims default to d = " + std::to_string(desc.shape.d) +
        ", which is odd; set rotated dims r to an even "
        "number <= d");
  return Status::success();
}

static bool isWarp(Schedule s) {
  return s == Schedule::Warped || s == Schedule::Blend;
}

Status validateDesc(const LayerDesc &desc) {
  if (rules::Problem why = rules::checkPower(desc.power))
    return Status::error("power p = " + std::to_string(desc.power) + " " +
                         *why);
  if (Status st = checkShape(desc); st.isError())
    return st;
  if (desc.scale)
    if (rules::Problem why = rules::checkScale(*desc.scale))
      return Status::error("scale = " + str(*desc.scale) + " " + *why);
  double scale = desc.effectiveScale();
  if (!std::isfinite(scale))
    return Status::error("scale = " + str(scale) + " must be finite");
  if (Status st = checkRotary(desc); st.isError())
    return st;

  if (isWarp(desc.schedule)) {
    if (!desc.warpLength)
      return Status::error(std::string("schedule '") + toString(desc.schedule) +
                           "' needs a warp length L > 0");
    if (rules::Problem why = rules::checkWarpLength(*desc.warpLength))
      return Status::error("warp length L = " + str(*desc.warpLength) + " " +
                           *why);
    if (desc.formulation != Formulation::Attention)
      return Status::error(std::string("schedule '") + toString(desc.schedule) +
                           "' has no " + toString(desc.formulation) +
                           " form: its angle depends on the age i - j only, "
                           "so only the attention formulation computes it");
    if (desc.wantFinalState)
      return Status::error(std::string("schedule '") + toString(desc.schedule) +
                           "' has no recurrent state, so a final state "
                           "cannot be returned");
  } else if (desc.warpLength) {
    return Status::error(std::string("a warp length is only used by the "
                                     "warped and blend schedules, not '") +
                         toString(desc.schedule) + "'");
  }

  if (desc.chunkSize < 0)
    return Status::error("chunk size C = " + std::to_string(desc.chunkSize) +
                         " must be >= 1");
  if (desc.formulation == Formulation::Chunked && desc.chunkSize < 1)
    return Status::error("the chunked formulation needs a chunk size C >= 1, "
                         "got " +
                         std::to_string(desc.chunkSize));

  bool needsState =
      desc.formulation != Formulation::Attention || desc.wantFinalState;
  if (needsState) {
    int64_t D = symPowerDim(desc.shape.d, desc.power);
    if (D < 0 || !mulFits({desc.shape.B, desc.shape.H, D, desc.shape.e + 1}) ||
        desc.shape.B * desc.shape.H * D * (desc.shape.e + 1) >
            kMaxStateElements)
      return Status::error(
          "the state S [B, H, D, e] with D = C(d+p-1, p) is too large for "
          "the reference (d = " +
          std::to_string(desc.shape.d) + ", p = " + std::to_string(desc.power) +
          "); use the attention formulation "
          "without states or smaller sizes");
  }
  return Status::success();
}

/// Presence and exact shape of one tensor.
static Status checkTensor(const char *name, const Tensor &t,
                          const std::vector<int64_t> &want, const char *dims) {
  if (t.shape != want)
    return Status::error(std::string(name) + " has shape " + t.shapeString() +
                         " but " + dims + " = " + shapeStr(want) +
                         " was expected");
  if (static_cast<int64_t>(t.data.size()) != t.numel())
    return Status::error(std::string(name) + " holds " +
                         std::to_string(t.data.size()) +
                         " values but its shape " + t.shapeString() +
                         " needs " + std::to_string(t.numel()));
  return Status::success();
}

enum class Range { Any, NonPositive, ZeroToTwo };

static Status checkValues(const char *name, const Tensor &t, InputType round,
                          Range range) {
  for (size_t i = 0; i < t.data.size(); ++i) {
    double x = roundTo(round, t.data[i]);
    std::string where = std::string(name) + " element " + std::to_string(i) +
                        " = " + str(t.data[i]);
    if (!std::isfinite(t.data[i]))
      return Status::error(where + " is not finite");
    if (!std::isfinite(x))
      return Status::error(where + " overflows " + toString(round));
    if (range == Range::NonPositive && x > 0)
      return Status::error(where + " is > 0; log gates must be <= 0 (the "
                                   "log of a gate in (0, 1])");
    if (range == Range::ZeroToTwo && (x < 0 || x > 2))
      return Status::error(where + " is outside [0, 2] (beta = 1 + tanh(...))");
  }
  return Status::success();
}

static Status checkPresence(const char *name, bool declared, bool given,
                            const char *because) {
  if (declared && !given)
    return Status::error(std::string(name) + " is missing but " + because);
  if (!declared && given)
    return Status::error(std::string(name) + " is given but " + because);
  return Status::success();
}

Status validate(const LayerDesc &desc, const LayerInputs &in) {
  if (Status st = validateDesc(desc); st.isError())
    return st;
  const Shape &s = desc.shape;
  Status st;
  if ((st = checkTensor("q", in.q, {s.B, s.T, s.Hq, s.d}, "[B, T, Hq, d]"))
          .isError() ||
      (st = checkTensor("k", in.k, {s.B, s.T, s.H, s.d}, "[B, T, H, d]"))
          .isError() ||
      (st = checkTensor("v", in.v, {s.B, s.T, s.H, s.e}, "[B, T, H, e]"))
          .isError())
    return st;

  bool learned = desc.schedule == Schedule::Learned;
  if ((st = checkPresence("log_g", desc.hasLogG, in.logG.has_value(),
                          desc.hasLogG ? "the layer declares a log_g gate"
                                       : "the layer declares no log_g gate"))
          .isError() ||
      (st = checkPresence(
           "log_gamma", desc.hasLogGamma, in.logGamma.has_value(),
           desc.hasLogGamma ? "the layer declares a log_gamma gate"
                            : "the layer declares no log_gamma gate"))
          .isError())
    return st;
  if (learned && !in.beta)
    return Status::error("the learned schedule needs beta [B, T, H]");
  if (!learned && in.beta)
    return Status::error(std::string("beta is only used by the learned "
                                     "schedule, but the schedule is '") +
                         toString(desc.schedule) + "'");

  if ((st = checkValues("q", in.q, desc.inputType, Range::Any)).isError() ||
      (st = checkValues("k", in.k, desc.inputType, Range::Any)).isError() ||
      (st = checkValues("v", in.v, desc.inputType, Range::Any)).isError())
    return st;
  if (in.logG &&
      ((st = checkTensor("log_g", *in.logG, {s.B, s.T, s.H}, "[B, T, H]"))
           .isError() ||
       (st = checkValues("log_g", *in.logG, InputType::F64, Range::NonPositive))
           .isError()))
    return st;
  if (in.logGamma &&
      ((st = checkTensor("log_gamma", *in.logGamma, {s.H}, "[H]")).isError() ||
       (st = checkValues("log_gamma", *in.logGamma, InputType::F64,
                         Range::NonPositive))
           .isError()))
    return st;
  if (in.beta &&
      ((st = checkTensor("beta", *in.beta, {s.B, s.T, s.H}, "[B, T, H]"))
           .isError() ||
       (st = checkValues("beta", *in.beta, InputType::F64, Range::ZeroToTwo))
           .isError()))
    return st;

  if (in.initialState) {
    if (isWarp(desc.schedule))
      return Status::error(std::string("schedule '") + toString(desc.schedule) +
                           "' has no recurrent state, so an initial state "
                           "cannot be used");
    int64_t D = symPowerDim(s.d, desc.power);
    if (D < 0 || !mulFits({s.B, s.H, D, s.e + 1}) ||
        s.B * s.H * D * (s.e + 1) > kMaxStateElements)
      return Status::error("the initial state S [B, H, D, e] with D = "
                           "C(d+p-1, p) is too large for the reference");
    const State &st0 = *in.initialState;
    if ((st = checkTensor("initial state S", st0.S, {s.B, s.H, D, s.e},
                          "[B, H, D, e] with D = C(d+p-1, p)"))
            .isError() ||
        (st = checkTensor("initial state Z", st0.Z, {s.B, s.H, D},
                          "[B, H, D] with D = C(d+p-1, p)"))
            .isError() ||
        (st = checkTensor("initial state c", st0.c, {s.B, s.H}, "[B, H]"))
            .isError() ||
        (st = checkValues("initial state S", st0.S, InputType::F64, Range::Any))
            .isError() ||
        (st = checkValues("initial state Z", st0.Z, InputType::F64, Range::Any))
            .isError() ||
        (st = checkValues("initial state c", st0.c, InputType::F64, Range::Any))
            .isError())
      return st;
  }
  return Status::success();
}

} // namespace sympow::reference
