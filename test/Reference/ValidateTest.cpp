//===- ValidateTest.cpp - Every bad input is rejected with a message ------===//

#include "sympow/Reference/Validate.h"
#include "TestUtil.h"

#include <functional>
#include <limits>

using namespace sympow::reference;
using namespace sympow::reference::test;

namespace {

struct BadCase {
  const char *name;
  std::function<void(Case &)> mutate;
  const char *expected; ///< substring of the error message
};

Case validCase() {
  Features f;
  f.initialState = true;
  return randomCase(50, f);
}

} // namespace

TEST(Validate, TheUnmutatedCaseIsValid) {
  Case c = validCase();
  EXPECT_TRUE(validate(c.desc, c.in).isOk())
      << validate(c.desc, c.in).message();
  Result<Shape> s = inferShape(c.in);
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->Hq, c.desc.shape.Hq);
  EXPECT_EQ(s->e, c.desc.shape.e);
}

TEST(Validate, RejectsEveryBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<BadCase> cases = {
      {"odd power", [](Case &c) { c.desc.power = 3; },
       "power p = 3 is not supported: p must be an even integer >= 2 and <= "
       "32"},
      // One set of rules with the C API and sympow-aot (LayerRules.h).
      {"power above the bound", [](Case &c) { c.desc.power = 34; },
       "power p = 34 is not supported"},
      {"scale 0", [](Case &c) { c.desc.scale = 0.0; },
       "scale = 0 must be a finite number > 0"},
      {"scale negative", [](Case &c) { c.desc.scale = -1.0; },
       "scale = -1 must be a finite number > 0"},
      {"rotary base 1", [](Case &c) { c.desc.rotary.base = 1.0; },
       "rotary base = 1 must be a finite number > 1"},
      {"rotary rate scale 0", [](Case &c) { c.desc.rotary.rateScale = 0.0; },
       "rotary rate_scale = 0 must be a finite number > 0"},
      {"power 0", [](Case &c) { c.desc.power = 0; }, "power p = 0"},
      {"negative power", [](Case &c) { c.desc.power = -2; }, "power p = -2"},
      {"zero batch", [](Case &c) { c.desc.shape.B = 0; }, "shape B = 0"},
      {"negative T", [](Case &c) { c.desc.shape.T = -1; }, "shape T = -1"},
      {"Hq not multiple of H",
       [](Case &c) {
         c.desc.shape.Hq = 3;
         c.in.q = Tensor({2, 9, 3, 6});
       },
       "query heads Hq = 3 is not a multiple of key/value heads H = 2"},
      {"k shape",
       [](Case &c) {
         c.in.k = Tensor({2, 9, 2, 5});
       },
       "k has shape [2, 9, 2, 5] but [B, T, H, d] = [2, 9, 2, 6]"},
      {"v shape",
       [](Case &c) {
         c.in.v = Tensor({2, 8, 2, 3});
       },
       "v has shape [2, 8, 2, 3]"},
      {"q rank",
       [](Case &c) {
         c.in.q = Tensor({2, 9, 24});
       },
       "q has shape [2, 9, 24]"},
      {"q data short", [](Case &c) { c.in.q.data.pop_back(); },
       "q holds 431 values"},
      {"rotary dims odd", [](Case &c) { c.desc.rotary.dims = 3; },
       "rotary dims r = 3 must be even and between 2 and d = 6"},
      {"rotary dims > d", [](Case &c) { c.desc.rotary.dims = 8; },
       "rotary dims r = 8"},
      {"rotary dims negative", [](Case &c) { c.desc.rotary.dims = -2; },
       "rotary dims r = -2"},
      {"rotary default dims odd",
       [](Case &c) {
         c.desc.shape.d = 5;
         c.desc.rotary.dims = 0;
         c.in.q = Tensor({2, 9, 4, 5});
         c.in.k = Tensor({2, 9, 2, 5});
       },
       "rotary dims default to d = 5, which is odd"},
      {"rotary base", [](Case &c) { c.desc.rotary.base = 0; },
       "rotary base = 0 must be a finite number > 1"},
      {"rotary rate scale", [nan](Case &c) { c.desc.rotary.rateScale = nan; },
       "rate_scale"},
      {"scale inf",
       [](Case &c) { c.desc.scale = std::numeric_limits<double>::infinity(); },
       "scale = inf must be a finite number > 0"},
      {"learned without beta", [](Case &c) { c.in.beta.reset(); },
       "the learned schedule needs beta"},
      {"beta without learned",
       [](Case &c) { c.desc.schedule = Schedule::Uniform; },
       "beta is only used by the learned schedule"},
      {"warped recurrent",
       [](Case &c) {
         c.desc.schedule = Schedule::Warped;
         c.desc.warpLength = 4;
         c.in.beta.reset();
         c.in.initialState.reset();
         c.desc.formulation = Formulation::Recurrent;
       },
       "schedule 'warped' has no recurrent form"},
      {"blend chunked",
       [](Case &c) {
         c.desc.schedule = Schedule::Blend;
         c.desc.warpLength = 4;
         c.in.beta.reset();
         c.in.initialState.reset();
         c.desc.formulation = Formulation::Chunked;
         c.desc.chunkSize = 4;
       },
       "schedule 'blend' has no chunked form"},
      {"warped initial state",
       [](Case &c) {
         c.desc.schedule = Schedule::Warped;
         c.desc.warpLength = 4;
         c.in.beta.reset();
       },
       "schedule 'warped' has no recurrent state, so an initial state"},
      {"blend final state",
       [](Case &c) {
         c.desc.schedule = Schedule::Blend;
         c.desc.warpLength = 4;
         c.in.beta.reset();
         c.in.initialState.reset();
         c.desc.wantFinalState = true;
       },
       "schedule 'blend' has no recurrent state, so a final state"},
      {"warped without length",
       [](Case &c) {
         c.desc.schedule = Schedule::Warped;
         c.in.beta.reset();
         c.in.initialState.reset();
       },
       "schedule 'warped' needs a warp length L > 0"},
      {"warp length negative",
       [](Case &c) {
         c.desc.schedule = Schedule::Blend;
         c.desc.warpLength = -1;
         c.in.beta.reset();
         c.in.initialState.reset();
       },
       "warp length L = -1 must be a finite number > 0"},
      {"warp length with learned", [](Case &c) { c.desc.warpLength = 4; },
       "a warp length is only used by the warped and blend schedules"},
      {"negative chunk size", [](Case &c) { c.desc.chunkSize = -4; },
       "chunk size C = -4 must be >= 1"},
      {"chunked without chunk size",
       [](Case &c) { c.desc.formulation = Formulation::Chunked; },
       "the chunked formulation needs a chunk size C >= 1"},
      {"log_g declared, missing", [](Case &c) { c.in.logG.reset(); },
       "log_g is missing"},
      {"log_g given, undeclared", [](Case &c) { c.desc.hasLogG = false; },
       "log_g is given but the layer declares no log_g gate"},
      {"log_gamma missing", [](Case &c) { c.in.logGamma.reset(); },
       "log_gamma is missing"},
      {"log_gamma shape", [](Case &c) { c.in.logGamma = Tensor({3}); },
       "log_gamma has shape [3] but [H] = [2]"},
      {"log_g shape",
       [](Case &c) {
         c.in.logG = Tensor({2, 9});
       },
       "log_g has shape [2, 9]"},
      {"positive log_g", [](Case &c) { c.in.logG->data[5] = 0.25; },
       "log_g element 5 = 0.25 is > 0"},
      {"beta out of range", [](Case &c) { c.in.beta->data[1] = 2.5; },
       "beta element 1 = 2.5 is outside [0, 2]"},
      {"q NaN", [nan](Case &c) { c.in.q.data[2] = nan; },
       "q element 2 = nan is not finite"},
      {"k overflows f16",
       [](Case &c) {
         c.desc.inputType = InputType::F16;
         c.in.k.data[0] = 1e5;
       },
       "k element 0 = 100000 overflows f16"},
      {"initial S shape",
       [](Case &c) {
         c.in.initialState->S = Tensor({2, 2, 20, 3});
       },
       "initial state S has shape [2, 2, 20, 3] but [B, H, D, e] with D = "
       "C(d+p-1, p) = [2, 2, 21, 3]"},
      {"initial Z shape",
       [](Case &c) {
         c.in.initialState->Z = Tensor({2, 2});
       },
       "initial state Z has shape [2, 2]"},
      {"initial c shape", [](Case &c) { c.in.initialState->c = Tensor({2}); },
       "initial state c has shape [2]"},
      {"initial S NaN", [nan](Case &c) { c.in.initialState->S.data[7] = nan; },
       "initial state S element 7 = nan is not finite"},
      {"state too large",
       [](Case &c) {
         c.desc.power = 8;
         c.desc.shape.d = 64;
         c.desc.rotary.dims = 64;
         c.in.initialState.reset();
         c.desc.formulation = Formulation::Recurrent;
       },
       "is too large for the reference"},
  };
  for (const BadCase &bad : cases) {
    Case c = validCase();
    bad.mutate(c);
    Status st = validate(c.desc, c.in);
    ASSERT_TRUE(st.isError()) << bad.name << ": accepted";
    EXPECT_NE(st.message().find(bad.expected), std::string::npos)
        << bad.name << ": got \"" << st.message() << "\"";
    // forward() refuses the same input with the same message.
    Result<LayerOutputs> r = forward(c.desc, c.in);
    ASSERT_TRUE(r.isError()) << bad.name;
    EXPECT_EQ(r.message(), st.message()) << bad.name;
  }
}

TEST(Validate, InferShapeRejectsInconsistentInputs) {
  Case c = validCase();
  c.in.q = Tensor({2, 9, 4});
  Result<Shape> r = inferShape(c.in);
  ASSERT_TRUE(r.isError());
  EXPECT_NE(
      r.message().find("q must be 4-D [B, T, Hq, d], got shape [2, 9, 4]"),
      std::string::npos)
      << r.message();
  c = validCase();
  c.in.k = Tensor({2, 8, 2, 6});
  r = inferShape(c.in);
  ASSERT_TRUE(r.isError());
  EXPECT_NE(r.message().find("k has shape [2, 8, 2, 6]"), std::string::npos)
      << r.message();
  c = validCase();
  c.in.v = Tensor({2, 9, 3, 3});
  r = inferShape(c.in);
  ASSERT_TRUE(r.isError());
  EXPECT_NE(r.message().find("v has shape [2, 9, 3, 3]"), std::string::npos)
      << r.message();
}
