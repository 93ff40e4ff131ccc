//===- TestUtil.h - Random layer cases for the reference tests --*- C++ -*-===//

#ifndef SYMPOW_TEST_REFERENCE_TESTUTIL_H
#define SYMPOW_TEST_REFERENCE_TESTUTIL_H

#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Forward.h"
#include "sympow/Reference/Layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace sympow::reference::test {

/// Deterministic random numbers for one test case.
class Rng {
public:
  explicit Rng(uint64_t seed) : gen(seed) {}
  double normal() { return std::normal_distribution<double>()(gen); }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  Tensor normalTensor(std::vector<int64_t> shape) {
    Tensor t(std::move(shape));
    for (double &x : t.data)
      x = normal();
    return t;
  }
  /// log of gates drawn from (lo, hi), as SPEC's accuracy section uses.
  Tensor logGateTensor(std::vector<int64_t> shape, double lo = 0.9,
                       double hi = 1.0) {
    Tensor t(std::move(shape));
    for (double &x : t.data)
      x = std::log(uniform(lo, hi));
    return t;
  }
  Tensor uniformTensor(std::vector<int64_t> shape, double lo, double hi) {
    Tensor t(std::move(shape));
    for (double &x : t.data)
      x = uniform(lo, hi);
    return t;
  }

private:
  std::mt19937_64 gen;
};

struct Case {
  LayerDesc desc;
  LayerInputs in;
};

/// Which features a random case turns on.
struct Features {
  int p = 2;
  Shape shape{2, 9, 4, 2, 6, 3};
  bool logG = true, logGamma = true;
  Schedule schedule = Schedule::Learned;
  RotaryLayout layout = RotaryLayout::Interleaved;
  int64_t rotaryDims = 4;
  bool initialState = true;
  InputType inputType = InputType::F64;
};

/// A valid state to start from: a positive mix of embedded random vectors,
/// so that denominators stay positive as they are for real states.
inline State randomState(Rng &rng, const Shape &s, int p) {
  MultisetBasis basis = makeMultisetBasis(s.d, p).value();
  int64_t D = basis.size();
  State st{Tensor({s.B, s.H, D, s.e}), Tensor({s.B, s.H, D}),
           Tensor({s.B, s.H})};
  std::vector<double> u(s.d), f(D);
  for (int64_t bh = 0; bh < s.B * s.H; ++bh) {
    for (int n = 0; n < 3; ++n) {
      for (double &x : u)
        x = rng.normal() / std::sqrt(double(s.d));
      embed(basis, u.data(), f.data());
      double w = rng.uniform(0.2, 1.0);
      for (int64_t m = 0; m < D; ++m) {
        st.Z.data[bh * D + m] += w * f[m];
        for (int64_t x = 0; x < s.e; ++x)
          st.S.data[(bh * D + m) * s.e + x] += w * f[m] * rng.normal();
      }
    }
    st.c.data[bh] = rng.uniform(0.0, 5.0);
  }
  return st;
}

inline Case randomCase(uint64_t seed, const Features &f) {
  Rng rng(seed);
  Case c;
  const Shape &s = f.shape;
  c.desc.power = f.p;
  c.desc.shape = s;
  c.desc.schedule = f.schedule;
  c.desc.rotary.layout = f.layout;
  c.desc.rotary.dims = f.rotaryDims;
  c.desc.rotary.base = 100.0;
  c.desc.rotary.rateScale = 0.7;
  c.desc.hasLogG = f.logG;
  c.desc.hasLogGamma = f.logGamma;
  c.desc.inputType = f.inputType;
  if (f.schedule == Schedule::Warped || f.schedule == Schedule::Blend)
    c.desc.warpLength = 3.5;
  c.in.q = rng.normalTensor({s.B, s.T, s.Hq, s.d});
  c.in.k = rng.normalTensor({s.B, s.T, s.H, s.d});
  c.in.v = rng.normalTensor({s.B, s.T, s.H, s.e});
  if (f.logG)
    c.in.logG = rng.logGateTensor({s.B, s.T, s.H});
  if (f.logGamma)
    c.in.logGamma = rng.logGateTensor({s.H});
  if (f.schedule == Schedule::Learned)
    c.in.beta = rng.uniformTensor({s.B, s.T, s.H}, 0.2, 1.8);
  if (f.initialState)
    c.in.initialState = randomState(rng, s, f.p);
  return c;
}

inline double maxAbs(const Tensor &t) {
  double m = 0.0;
  for (double x : t.data)
    m = std::max(m, std::fabs(x));
  return m;
}

/// max |a - b| / max |a|; infinity on a shape mismatch.
inline double relDiff(const Tensor &a, const Tensor &b) {
  if (a.shape != b.shape || a.data.size() != b.data.size())
    return INFINITY;
  double m = 0.0;
  for (size_t i = 0; i < a.data.size(); ++i)
    m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  double scale = maxAbs(a);
  return scale == 0.0 ? m : m / scale;
}

/// Runs forward and fails the calling test on error.
inline LayerOutputs run(const LayerDesc &desc, const LayerInputs &in) {
  Result<LayerOutputs> r = forward(desc, in);
  if (r.isError()) {
    ADD_FAILURE() << "forward failed: " << r.message();
    return LayerOutputs();
  }
  return r.value();
}

} // namespace sympow::reference::test

#endif // SYMPOW_TEST_REFERENCE_TESTUTIL_H
