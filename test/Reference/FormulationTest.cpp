//===- FormulationTest.cpp - attention = recurrent = chunked --------------===//

#include "TestUtil.h"
#include "sympow/Reference/Rounding.h"

using namespace sympow::reference;
using namespace sympow::reference::test;

namespace {

/// Features of the randomized agreement cases: every feature on, over both
/// layouts, the rotating schedules and p = 2, 4.
struct AgreementParam {
  int p;
  RotaryLayout layout;
  Schedule schedule;
  bool initialState;
};

void PrintTo(const AgreementParam &a, std::ostream *os) {
  *os << "p=" << a.p << " " << toString(a.layout) << " " << toString(a.schedule)
      << (a.initialState ? " with S0" : "");
}

class Agreement : public ::testing::TestWithParam<AgreementParam> {};

Features featuresFor(const AgreementParam &a) {
  Features f;
  f.p = a.p;
  f.layout = a.layout;
  f.schedule = a.schedule;
  f.initialState = a.initialState;
  // T = 10 is not a multiple of 3 or 16; p = 4 keeps d small (D = 35).
  f.shape = a.p == 2 ? Shape{2, 10, 4, 2, 6, 3} : Shape{1, 10, 4, 2, 4, 3};
  f.rotaryDims = a.p == 2 ? 4 : 2;
  return f;
}

} // namespace

TEST_P(Agreement, AllFormulationsMatchTheDefinition) {
  const AgreementParam &a = GetParam();
  for (uint64_t seed : {1, 2}) {
    Case c = randomCase(seed * 100 + a.p, featuresFor(a));
    c.desc.wantFinalState = true;
    c.desc.formulation = Formulation::Attention;
    LayerOutputs ref = run(c.desc, c.in);
    ASSERT_TRUE(ref.finalState);
    ASSERT_GT(maxAbs(ref.y), 0.0);

    std::vector<std::pair<Formulation, int64_t>> others = {
        {Formulation::Recurrent, 0},
        {Formulation::Chunked, 1},
        {Formulation::Chunked, 3},
        {Formulation::Chunked, 16},
        {Formulation::Chunked, c.desc.shape.T}};
    for (auto [form, C] : others) {
      LayerDesc desc = c.desc;
      desc.formulation = form;
      desc.chunkSize = C;
      LayerOutputs got = run(desc, c.in);
      ASSERT_TRUE(got.finalState);
      std::string what = std::string(toString(form)) +
                         " C=" + std::to_string(C) +
                         " seed=" + std::to_string(seed);
      EXPECT_LE(relDiff(ref.y, got.y), 1e-10) << what;
      EXPECT_LE(relDiff(ref.finalState->S, got.finalState->S), 1e-10) << what;
      EXPECT_LE(relDiff(ref.finalState->Z, got.finalState->Z), 1e-10) << what;
      EXPECT_LE(relDiff(ref.finalState->c, got.finalState->c), 1e-12) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Reference, Agreement,
    ::testing::Values(
        AgreementParam{2, RotaryLayout::Interleaved, Schedule::Learned, true},
        AgreementParam{2, RotaryLayout::Half, Schedule::Learned, true},
        AgreementParam{2, RotaryLayout::Half, Schedule::Uniform, true},
        AgreementParam{2, RotaryLayout::Interleaved, Schedule::None, true},
        AgreementParam{2, RotaryLayout::Interleaved, Schedule::Learned, false},
        AgreementParam{4, RotaryLayout::Interleaved, Schedule::Learned, true},
        AgreementParam{4, RotaryLayout::Half, Schedule::Uniform, true},
        AgreementParam{4, RotaryLayout::Half, Schedule::Learned, false}),
    [](const ::testing::TestParamInfo<AgreementParam> &info) {
      const AgreementParam &a = info.param;
      return "p" + std::to_string(a.p) + "_" + toString(a.layout) + "_" +
             toString(a.schedule) + (a.initialState ? "_state" : "");
    });

/// Tokens [t0, t1) of a [B, T, ...] tensor.
static Tensor sliceT(const Tensor &t, int64_t t0, int64_t t1) {
  std::vector<int64_t> shape = t.shape;
  int64_t inner = 1;
  for (size_t i = 2; i < shape.size(); ++i)
    inner *= shape[i];
  int64_t T = shape[1];
  shape[1] = t1 - t0;
  Tensor out(shape);
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t i = 0; i < (t1 - t0) * inner; ++i)
      out.data[b * (t1 - t0) * inner + i] = t.data[(b * T + t0) * inner + i];
  return out;
}

static Case sliceCase(const Case &c, int64_t t0, int64_t t1) {
  Case s = c;
  s.desc.shape.T = t1 - t0;
  s.in.q = sliceT(c.in.q, t0, t1);
  s.in.k = sliceT(c.in.k, t0, t1);
  s.in.v = sliceT(c.in.v, t0, t1);
  if (c.in.logG)
    s.in.logG = sliceT(*c.in.logG, t0, t1);
  if (c.in.beta)
    s.in.beta = sliceT(*c.in.beta, t0, t1);
  return s;
}

TEST(Continuation, SplittingAnywhereEqualsTheWhole) {
  for (int p : {2, 4}) {
    for (Schedule sched : {Schedule::Learned, Schedule::Uniform}) {
      for (Formulation form : {Formulation::Attention, Formulation::Chunked,
                               Formulation::Recurrent}) {
        Features f;
        f.p = p;
        f.schedule = sched;
        f.shape = p == 2 ? Shape{2, 8, 4, 2, 6, 3} : Shape{1, 8, 2, 1, 4, 2};
        f.rotaryDims = p == 2 ? 6 : 4;
        f.layout = p == 2 ? RotaryLayout::Half : RotaryLayout::Interleaved;
        Case whole = randomCase(40 + p, f);
        whole.desc.formulation = form;
        whole.desc.chunkSize = 3;
        whole.desc.wantFinalState = true;
        LayerOutputs all = run(whole.desc, whole.in);
        const int64_t T = whole.desc.shape.T;
        for (int64_t split : {int64_t(0), int64_t(1), int64_t(5), T - 1, T}) {
          Case first = sliceCase(whole, 0, split);
          Case second = sliceCase(whole, split, T);
          LayerOutputs a = run(first.desc, first.in);
          ASSERT_TRUE(a.finalState);
          second.in.initialState = *a.finalState;
          LayerOutputs b = run(second.desc, second.in);
          ASSERT_TRUE(b.finalState);
          std::string what = "p=" + std::to_string(p) + " " + toString(sched) +
                             " " + toString(form) +
                             " split=" + std::to_string(split);
          EXPECT_LE(relDiff(sliceT(all.y, 0, split), a.y), 1e-10) << what;
          EXPECT_LE(relDiff(sliceT(all.y, split, T), b.y), 1e-10) << what;
          EXPECT_LE(relDiff(all.finalState->S, b.finalState->S), 1e-10) << what;
          EXPECT_LE(relDiff(all.finalState->Z, b.finalState->Z), 1e-10) << what;
          EXPECT_LE(relDiff(all.finalState->c, b.finalState->c), 1e-12) << what;
        }
      }
    }
  }
}

TEST(Schedules, BlendBelowItsLengthIsUniform) {
  Features f;
  f.schedule = Schedule::Blend;
  f.initialState = false;
  Case c = randomCase(5, f);
  c.desc.warpLength = 100.0; // every age a < L
  LayerOutputs blend = run(c.desc, c.in);
  c.desc.schedule = Schedule::Uniform;
  c.desc.warpLength.reset();
  LayerOutputs uniform = run(c.desc, c.in);
  EXPECT_LE(relDiff(uniform.y, blend.y), 1e-13);
}

TEST(Schedules, WarpedTendsToUniformForLongLengths) {
  Features f;
  f.schedule = Schedule::Warped;
  f.initialState = false;
  Case c = randomCase(6, f);
  c.desc.warpLength = 1e15;
  LayerOutputs warped = run(c.desc, c.in);
  c.desc.warpLength = 2.0; // a genuinely different schedule must differ
  LayerOutputs shortWarp = run(c.desc, c.in);
  c.desc.schedule = Schedule::Uniform;
  c.desc.warpLength.reset();
  LayerOutputs uniform = run(c.desc, c.in);
  EXPECT_LE(relDiff(uniform.y, warped.y), 1e-10);
  EXPECT_GT(relDiff(uniform.y, shortWarp.y), 1e-3);
}

TEST(Schedules, UniformIsLearnedWithUnitBeta) {
  Features f;
  Case c = randomCase(8, f);
  c.desc.wantFinalState = true;
  for (double &b : c.in.beta->data)
    b = 1.0;
  LayerOutputs learned = run(c.desc, c.in);
  c.desc.schedule = Schedule::Uniform;
  c.in.beta.reset();
  LayerOutputs uniform = run(c.desc, c.in);
  EXPECT_LE(relDiff(uniform.y, learned.y), 1e-13);
  EXPECT_LE(relDiff(uniform.finalState->c, learned.finalState->c), 1e-15);
}

TEST(Definition, HandComputedTwoTokens) {
  // d = 2, p = 2, scale 1, no gates, no rotation, e = 1.
  LayerDesc desc;
  desc.shape = Shape{1, 2, 1, 1, 2, 1};
  desc.scale = 1.0;
  desc.inputType = InputType::F64;
  LayerInputs in;
  in.q = Tensor({1, 2, 1, 2}, {1, 0, 1, 1});
  in.k = Tensor({1, 2, 1, 2}, {2, 0, 0, 3});
  in.v = Tensor({1, 2, 1, 1}, {5, 7});
  LayerOutputs out = run(desc, in);
  // y0 = v0 = 5. y1: scores (1*2)^2 = 4 and (1*3)^2 = 9 -> (4*5 + 9*7)/13.
  ASSERT_EQ(out.y.data.size(), 2u);
  EXPECT_DOUBLE_EQ(out.y.data[0], 5.0);
  EXPECT_DOUBLE_EQ(out.y.data[1], (4.0 * 5 + 9.0 * 7) / 13.0);
}

TEST(Definition, ZeroDenominatorGivesZero) {
  LayerDesc desc;
  desc.shape = Shape{1, 2, 1, 1, 2, 2};
  desc.inputType = InputType::F64;
  LayerInputs in;
  in.q = Tensor({1, 2, 1, 2}, {0, 0, 1, 0}); // q0 = 0: every score is 0
  in.k = Tensor({1, 2, 1, 2}, {1, 1, 0, 1}); // q1 . k1 = 0, q1 . k0 = 1
  in.v = Tensor({1, 2, 1, 2}, {3, 4, 5, 6});
  for (Formulation form :
       {Formulation::Attention, Formulation::Recurrent, Formulation::Chunked}) {
    desc.formulation = form;
    desc.chunkSize = 1;
    LayerOutputs out = run(desc, in);
    ASSERT_EQ(out.y.data.size(), 4u);
    EXPECT_EQ(out.y.data[0], 0.0) << toString(form);
    EXPECT_EQ(out.y.data[1], 0.0) << toString(form);
    EXPECT_NEAR(out.y.data[2], 3.0, 1e-15) << toString(form);
    EXPECT_NEAR(out.y.data[3], 4.0, 1e-15) << toString(form);
  }
}

TEST(Definition, InputsAreRoundedOnEntry) {
  Features f;
  f.initialState = false;
  Case c = randomCase(9, f);
  c.desc.inputType = InputType::BF16;
  LayerOutputs viaType = run(c.desc, c.in);
  Case pre = c;
  pre.desc.inputType = InputType::F64;
  for (Tensor *t : {&pre.in.q, &pre.in.k, &pre.in.v})
    for (double &x : t->data)
      x = roundTo(InputType::BF16, x);
  LayerOutputs viaRounded = run(pre.desc, pre.in);
  EXPECT_EQ(relDiff(viaRounded.y, viaType.y), 0.0);
  c.desc.inputType = InputType::F64;
  LayerOutputs exact = run(c.desc, c.in);
  EXPECT_GT(relDiff(exact.y, viaType.y), 1e-5); // rounding did something
}
