//===- GradientTest.cpp - Gradients against finite differences ------------===//

#include "sympow/Reference/Gradient.h"
#include "TestUtil.h"

using namespace sympow::reference;
using namespace sympow::reference::test;

namespace {

/// Every input value of a case, addressable by (tensor name, index).
std::vector<std::pair<std::string, Tensor *>> inputTensors(Case &c) {
  std::vector<std::pair<std::string, Tensor *>> out = {
      {"q", &c.in.q}, {"k", &c.in.k}, {"v", &c.in.v}};
  if (c.in.logG)
    out.push_back({"log_g", &*c.in.logG});
  if (c.in.logGamma)
    out.push_back({"log_gamma", &*c.in.logGamma});
  if (c.in.beta)
    out.push_back({"beta", &*c.in.beta});
  if (c.in.initialState) {
    out.push_back({"S0", &c.in.initialState->S});
    out.push_back({"Z0", &c.in.initialState->Z});
    out.push_back({"c0", &c.in.initialState->c});
  }
  return out;
}

const Tensor *gradientFor(const LayerGradients &g, const std::string &name) {
  if (name == "q")
    return &g.dq;
  if (name == "k")
    return &g.dk;
  if (name == "v")
    return &g.dv;
  if (name == "log_g")
    return g.dlogG ? &*g.dlogG : nullptr;
  if (name == "log_gamma")
    return g.dlogGamma ? &*g.dlogGamma : nullptr;
  if (name == "beta")
    return g.dbeta ? &*g.dbeta : nullptr;
  if (!g.dInitialState)
    return nullptr;
  if (name == "S0")
    return &g.dInitialState->S;
  if (name == "Z0")
    return &g.dInitialState->Z;
  return &g.dInitialState->c;
}

double dotAll(const Tensor &a, const Tensor &b) {
  double s = 0.0;
  for (size_t i = 0; i < a.data.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

/// loss = <dy, y> + <dS, S_T> + <dZ, Z_T> + <dc, c_T>.
double loss(const Case &c, const OutputGradients &g) {
  Result<LayerOutputs> r = forward(c.desc, c.in);
  if (r.isError())
    return NAN;
  double l = dotAll(g.dy, r->y);
  if (g.dFinalState)
    l += dotAll(g.dFinalState->S, r->finalState->S) +
         dotAll(g.dFinalState->Z, r->finalState->Z) +
         dotAll(g.dFinalState->c, r->finalState->c);
  return l;
}

void checkAgainstFiniteDifferences(Case c, bool finalState, uint64_t seed) {
  c.desc.inputType = InputType::F64; // rounding would swamp the difference
  c.desc.wantFinalState = finalState;
  const Shape &s = c.desc.shape;
  Rng rng(seed);
  OutputGradients g;
  g.dy = rng.normalTensor({s.B, s.T, s.Hq, s.e});
  if (finalState) {
    int64_t D = symPowerDim(s.d, c.desc.power);
    g.dFinalState =
        State{rng.normalTensor({s.B, s.H, D, s.e}),
              rng.normalTensor({s.B, s.H, D}), rng.normalTensor({s.B, s.H})};
  }
  Result<LayerGradients> grads = backward(c.desc, c.in, g);
  ASSERT_TRUE(grads.isOk()) << grads.message();

  const double h = 1e-6;
  for (auto &[name, tensor] : inputTensors(c)) {
    const Tensor *ad = gradientFor(grads.value(), name);
    ASSERT_NE(ad, nullptr) << "no gradient for " << name;
    ASSERT_EQ(ad->shape, tensor->shape) << name;
    for (size_t i = 0; i < tensor->data.size(); ++i) {
      double x0 = tensor->data[i];
      tensor->data[i] = x0 + h;
      double up = loss(c, g);
      tensor->data[i] = x0 - h;
      double down = loss(c, g);
      tensor->data[i] = x0;
      double fd = (up - down) / (2 * h);
      EXPECT_NEAR(ad->data[i], fd, 1e-6 * std::max(1.0, std::fabs(fd)))
          << name << "[" << i << "]";
    }
  }
}

Features gradientFeatures(int p) {
  Features f;
  f.p = p;
  f.shape = p == 2 ? Shape{1, 5, 4, 2, 4, 2} : Shape{1, 4, 2, 1, 3, 2};
  f.rotaryDims = 2;
  return f;
}

} // namespace

TEST(Gradients, EveryFeatureP2MatchesFiniteDifferences) {
  Features f = gradientFeatures(2);
  Case c = randomCase(31, f);
  // Keep log gates away from 0 so +-h stays a valid gate.
  Rng rng(131);
  c.in.logG = rng.logGateTensor(c.in.logG->shape, 0.9, 0.99);
  c.in.logGamma = rng.logGateTensor(c.in.logGamma->shape, 0.9, 0.99);
  checkAgainstFiniteDifferences(c, /*finalState=*/true, 1);
}

TEST(Gradients, HalfLayoutUniformP4MatchesFiniteDifferences) {
  Features f = gradientFeatures(4);
  f.schedule = Schedule::Uniform;
  f.layout = RotaryLayout::Half;
  f.logG = false;
  Case c = randomCase(32, f);
  Rng rng(132);
  c.in.logGamma = rng.logGateTensor(c.in.logGamma->shape, 0.9, 0.99);
  checkAgainstFiniteDifferences(c, /*finalState=*/true, 2);
}

TEST(Gradients, WarpedWithoutStateMatchesFiniteDifferences) {
  for (Schedule sched : {Schedule::Warped, Schedule::Blend}) {
    Features f = gradientFeatures(2);
    f.schedule = sched;
    f.initialState = false;
    Case c = randomCase(33, f);
    Rng rng(133);
    c.in.logG = rng.logGateTensor(c.in.logG->shape, 0.9, 0.99);
    c.in.logGamma = rng.logGateTensor(c.in.logGamma->shape, 0.9, 0.99);
    checkAgainstFiniteDifferences(c, /*finalState=*/false, 3);
  }
}

TEST(Gradients, RejectsBadUpstreamShapes) {
  Case c = randomCase(34, gradientFeatures(2));
  OutputGradients g;
  g.dy = Tensor({1, 5, 4, 3});
  Result<LayerGradients> r = backward(c.desc, c.in, g);
  ASSERT_TRUE(r.isError());
  EXPECT_NE(r.message().find("dy has shape [1, 5, 4, 3]"), std::string::npos)
      << r.message();
}
