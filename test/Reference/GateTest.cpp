//===- GateTest.cpp - Gates: ALiBi equivalence and combinations -----------===//

#include "TestUtil.h"

using namespace sympow::reference;
using namespace sympow::reference::test;

TEST(Gates, ConstantGateIsAlibiBias) {
  // log_gamma = -m_h must equal scores (scale q.k)^p times exp(-m (i - j)).
  Features f;
  f.schedule = Schedule::None;
  f.logG = false;
  f.initialState = false;
  f.shape = Shape{2, 7, 4, 2, 5, 3};
  Case c = randomCase(21, f);
  std::vector<double> m = {0.3, 1.1};
  for (int64_t h = 0; h < 2; ++h)
    c.in.logGamma->data[h] = -m[h];
  const Shape &s = c.desc.shape;
  const double scale = 1.0 / std::sqrt(double(s.d));
  Tensor want({s.B, s.T, s.Hq, s.e});
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t hq = 0; hq < s.Hq; ++hq) {
      int64_t h = hq / (s.Hq / s.H);
      for (int64_t i = 0; i < s.T; ++i) {
        std::vector<double> num(s.e, 0.0);
        double den = 0.0;
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (int64_t x = 0; x < s.d; ++x)
            dot += c.in.q.data[((b * s.T + i) * s.Hq + hq) * s.d + x] *
                   c.in.k.data[((b * s.T + j) * s.H + h) * s.d + x];
          double w = std::pow(scale * dot, 2) * std::exp(-m[h] * (i - j));
          den += w;
          for (int64_t x = 0; x < s.e; ++x)
            num[x] += w * c.in.v.data[((b * s.T + j) * s.H + h) * s.e + x];
        }
        for (int64_t x = 0; x < s.e; ++x)
          want.data[((b * s.T + i) * s.Hq + hq) * s.e + x] = num[x] / den;
      }
    }
  for (Formulation form :
       {Formulation::Attention, Formulation::Recurrent, Formulation::Chunked}) {
    c.desc.formulation = form;
    c.desc.chunkSize = 3;
    EXPECT_LE(relDiff(want, run(c.desc, c.in).y), 1e-12) << toString(form);
  }
}

TEST(Gates, EachAloneAndBothCompose) {
  // A per-head constant given as log_g equals the same constant as
  // log_gamma; splitting one gate between the two is the same too.
  Features f;
  f.initialState = true;
  Case base = randomCase(22, f);
  const Shape &s = base.desc.shape;
  std::vector<double> m = {-0.07, -0.02};

  Case viaGamma = base;
  viaGamma.desc.hasLogG = false;
  viaGamma.in.logG.reset();
  viaGamma.in.logGamma->data = m;

  Case viaG = base;
  viaG.desc.hasLogGamma = false;
  viaG.in.logGamma.reset();
  for (int64_t bt = 0; bt < s.B * s.T; ++bt)
    for (int64_t h = 0; h < s.H; ++h)
      viaG.in.logG->data[bt * s.H + h] = m[h];

  Case viaBoth = viaG;
  viaBoth.desc.hasLogGamma = true;
  viaBoth.in.logGamma = Tensor({s.H}, {m[0] / 2, m[1] / 2});
  for (double &x : viaBoth.in.logG->data)
    x /= 2;

  LayerOutputs a = run(viaGamma.desc, viaGamma.in);
  LayerOutputs b = run(viaG.desc, viaG.in);
  LayerOutputs c = run(viaBoth.desc, viaBoth.in);
  EXPECT_LE(relDiff(a.y, b.y), 1e-13);
  EXPECT_LE(relDiff(a.y, c.y), 1e-13);

  Case ungated = base;
  ungated.desc.hasLogG = ungated.desc.hasLogGamma = false;
  ungated.in.logG.reset();
  ungated.in.logGamma.reset();
  EXPECT_GT(relDiff(a.y, run(ungated.desc, ungated.in).y), 1e-4);
}

TEST(Gates, GatesBelowF32AreExactInEveryFormulation) {
  // A gate of -1e37 (finite, <= 0) at some tokens, ordinary gates at the
  // others: a weight spanning a tiny gate is 0, the others are as usual. The
  // recurrent formulation multiplies by exp(log_g) token by token (exactly
  // 0); the attention and chunked formulations form prefix sums G, where
  // without saturation -1e37 + (ordinary gates) cancels catastrophically
  // in G_i - G_j. All three must agree, and with log_g = -1e37 everywhere
  // y = v at every token.
  Features f;
  f.schedule = Schedule::None;
  f.rotaryDims = 0;
  f.initialState = true;
  f.shape = Shape{1, 12, 2, 1, 4, 3};
  Case c = randomCase(23, f);
  c.desc.wantFinalState = true;
  for (int64_t t : {0, 5, 6})
    c.in.logG->data[t] = -1e37;
  c.in.logGamma->data[0] = -0.01;
  c.desc.formulation = Formulation::Recurrent;
  LayerOutputs want = run(c.desc, c.in);
  for (Formulation form : {Formulation::Attention, Formulation::Chunked}) {
    c.desc.formulation = form;
    c.desc.chunkSize = 4;
    LayerOutputs got = run(c.desc, c.in);
    EXPECT_LE(relDiff(want.y, got.y), 1e-12) << toString(form);
    EXPECT_LE(relDiff(want.finalState->S, got.finalState->S), 1e-12)
        << toString(form);
  }

  for (double &g : c.in.logG->data)
    g = -1e37;
  for (Formulation form :
       {Formulation::Attention, Formulation::Recurrent, Formulation::Chunked}) {
    c.desc.formulation = form;
    LayerOutputs out = run(c.desc, c.in);
    const Shape &s = c.desc.shape;
    for (int64_t t = 0; t < s.T; ++t)
      for (int64_t hq = 0; hq < s.Hq; ++hq)
        for (int64_t x = 0; x < s.e; ++x)
          EXPECT_NEAR(out.y.data[(t * s.Hq + hq) * s.e + x],
                      c.in.v.data[t * s.e + x], 1e-12)
              << toString(form) << " token " << t;
  }
}
