//===- Gradient.cpp - Derivatives of the definition by autodiff -----------===//

#include "sympow/Reference/Gradient.h"

#include "AttentionCore.h"
#include "AutoDiff.h"
#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Rounding.h"
#include "sympow/Reference/Validate.h"

#include <cmath>

namespace sympow::reference {

using ad::Var;

namespace {
/// Leaves on the tape for one tensor.
struct Leaves {
  std::vector<Var> vars;

  explicit Leaves(const Tensor &t) {
    vars.reserve(t.data.size());
    for (double x : t.data)
      vars.push_back(Var::leaf(x));
  }
  Tensor gradient(const Tensor &like, const std::vector<double> &adj) const {
    Tensor g(like.shape);
    for (size_t i = 0; i < vars.size(); ++i)
      g.data[i] = adj[vars[i].id];
    return g;
  }
};
} // namespace

static Status checkGradTensor(const char *name, const Tensor &t,
                              const std::vector<int64_t> &want) {
  if (t.shape != want)
    return Status::error(std::string(name) + " has shape " + t.shapeString() +
                         " but " + Tensor(want, {}).shapeString() +
                         " was expected");
  if (static_cast<int64_t>(t.data.size()) != t.numel())
    return Status::error(
        std::string(name) + " holds " + std::to_string(t.data.size()) +
        " values but its shape needs " + std::to_string(t.numel()));
  for (double x : t.data)
    if (!std::isfinite(x))
      return Status::error(std::string(name) + " has a non-finite value");
  return Status::success();
}

/// Rough tape size, to refuse sizes that would exhaust memory.
static double tapeEstimate(const LayerDesc &desc, int64_t D, bool state) {
  const Shape &s = desc.shape;
  double pairs = double(s.B) * s.Hq * s.T * (s.T + 1) / 2.0;
  double perPair = 6.0 * s.d + 2.0 * s.e + 8.0 + 2.0 * desc.power;
  double stateNodes =
      state ? double(s.B) * (s.Hq + s.H) * s.T * D * (s.e + desc.power + 2)
            : 0.0;
  return pairs * perPair + stateNodes;
}

Result<LayerGradients> backward(const LayerDesc &descIn,
                                const LayerInputs &inputs,
                                const OutputGradients &grads) {
  LayerDesc desc = descIn;
  desc.formulation = Formulation::Attention;
  desc.wantFinalState = grads.dFinalState.has_value();
  if (Status st = validate(desc, inputs); st.isError())
    return st;
  const Shape &s = desc.shape;
  if (Status st = checkGradTensor("dy", grads.dy, {s.B, s.T, s.Hq, s.e});
      st.isError())
    return st;

  bool state = desc.wantFinalState || inputs.initialState.has_value();
  MultisetBasis basis;
  if (state) {
    Result<MultisetBasis> made = makeMultisetBasis(s.d, desc.power);
    if (made.isError())
      return made.status();
    basis = std::move(made.value());
  }
  const int64_t D = basis.size();
  if (grads.dFinalState) {
    Status st;
    if ((st = checkGradTensor("dS_final", grads.dFinalState->S,
                              {s.B, s.H, D, s.e}))
            .isError() ||
        (st = checkGradTensor("dZ_final", grads.dFinalState->Z, {s.B, s.H, D}))
            .isError() ||
        (st = checkGradTensor("dc_final", grads.dFinalState->c, {s.B, s.H}))
            .isError())
      return st;
  }
  if (tapeEstimate(desc, D, state) > double(int64_t(1) << 26))
    return Status::error("the problem is too large for the reference "
                         "backward (its tape would exceed 2^26 nodes); use "
                         "smaller B, T, heads or dims");

  LayerInputs in = inputs;
  roundInPlace(desc.inputType, in.q);
  roundInPlace(desc.inputType, in.k);
  roundInPlace(desc.inputType, in.v);

  ad::Tape tape;
  ad::activeTape = &tape;
  Leaves q(in.q), k(in.k), v(in.v);
  std::optional<Leaves> logG, logGamma, beta, S0, Z0, c0;
  if (in.logG)
    logG.emplace(*in.logG);
  if (in.logGamma)
    logGamma.emplace(*in.logGamma);
  if (in.beta)
    beta.emplace(*in.beta);
  if (in.initialState) {
    S0.emplace(in.initialState->S);
    Z0.emplace(in.initialState->Z);
    c0.emplace(in.initialState->c);
  }

  detail::CoreInputs<Var> ci;
  ci.q = q.vars.data();
  ci.k = k.vars.data();
  ci.v = v.vars.data();
  ci.logG = logG ? logG->vars.data() : nullptr;
  ci.logGamma = logGamma ? logGamma->vars.data() : nullptr;
  ci.beta = beta ? beta->vars.data() : nullptr;
  ci.S0 = S0 ? S0->vars.data() : nullptr;
  ci.Z0 = Z0 ? Z0->vars.data() : nullptr;
  ci.c0 = c0 ? c0->vars.data() : nullptr;

  std::vector<Var> y(grads.dy.data.size()), Sf, Zf, cf;
  detail::CoreOutputs<Var> co;
  co.y = y.data();
  if (grads.dFinalState) {
    Sf.resize(s.B * s.H * D * s.e);
    Zf.resize(s.B * s.H * D);
    cf.resize(s.B * s.H);
    co.finalS = Sf.data();
    co.finalZ = Zf.data();
    co.finalC = cf.data();
  }
  detail::attentionCore<Var>(desc, state ? &basis : nullptr, ci, co);
  ad::activeTape = nullptr;

  // Seed the adjoints of the outputs with the upstream gradients.
  std::vector<double> seed(tape.size(), 0.0);
  auto addSeed = [&](const std::vector<Var> &outs, const Tensor &g) {
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i].id >= 0)
        seed[outs[i].id] += g.data[i];
  };
  addSeed(y, grads.dy);
  if (grads.dFinalState) {
    addSeed(Sf, grads.dFinalState->S);
    addSeed(Zf, grads.dFinalState->Z);
    addSeed(cf, grads.dFinalState->c);
  }
  std::vector<double> adj = tape.reverse(seed);

  LayerGradients out;
  out.dq = q.gradient(in.q, adj);
  out.dk = k.gradient(in.k, adj);
  out.dv = v.gradient(in.v, adj);
  if (logG)
    out.dlogG = logG->gradient(*in.logG, adj);
  if (logGamma)
    out.dlogGamma = logGamma->gradient(*in.logGamma, adj);
  if (beta)
    out.dbeta = beta->gradient(*in.beta, adj);
  if (in.initialState)
    out.dInitialState = State{S0->gradient(in.initialState->S, adj),
                              Z0->gradient(in.initialState->Z, adj),
                              c0->gradient(in.initialState->c, adj)};
  return out;
}

} // namespace sympow::reference
