//===- SweepTest.cpp - The variant matrix on the emulator -----------------===//
//
// Every formulation x dtype x gate kind, with p, the head dims and the
// schedule cycling through their values, so that each value of each
// dimension of the code-generation matrix meets each formulation; each case
// over T in {1, C-1, C, C+1, 3C+5} with B = 2, H = 2 (Hq = 4, GQA) and, for
// the state formulations, an initial and a final state. Sizes keep the CI run
// short; SYMPOW_FULL_SWEEP=1 adds d = 64 and p = 4 at larger heads.
//
//===----------------------------------------------------------------------===//

#include "KernelRunner.h"

#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Compiler/GPU/RecurrentKernel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

using namespace sympow;
using namespace sympow::e2e;

namespace {

struct SweepCase {
  runtime::Formulation formulation;
  AttentionKernelSpec spec;
  int64_t chunk = 0;
  std::string name;
};

void PrintTo(const SweepCase &c, std::ostream *os) { *os << c.name; }

std::vector<SweepCase> sweep() {
  bool full = std::getenv("SYMPOW_FULL_SWEEP") &&
              std::string(std::getenv("SYMPOW_FULL_SWEEP")) == "1";
  struct Dims {
    int64_t p, d, e;
  };
  std::vector<Dims> dims = {{2, 32, 32}, {2, 16, 32}, {4, 16, 16}, {2, 32, 16}};
  if (full)
    dims.insert(dims.end(), {{2, 64, 64}, {4, 32, 32}, {2, 128, 64}});
  std::vector<SweepCase> cases;
  int counter = 0;
  for (runtime::Formulation f :
       {runtime::Formulation::Attention, runtime::Formulation::Chunked,
        runtime::Formulation::Recurrent}) {
    std::vector<ScheduleKind> schedules = {
        ScheduleKind::None, ScheduleKind::Uniform, ScheduleKind::Learned};
    if (f == runtime::Formulation::Attention)
      schedules.insert(schedules.end(),
                       {ScheduleKind::Warped, ScheduleKind::Blend});
    for (ElementKind dtype :
         {ElementKind::BF16, ElementKind::F16, ElementKind::F32})
      for (GateKind gate :
           {GateKind::None, GateKind::Head, GateKind::Data, GateKind::Both}) {
        SweepCase c;
        c.formulation = f;
        AttentionKernelSpec &s = c.spec;
        const Dims &dm = dims[counter % dims.size()];
        s.p = dm.p;
        s.d = dm.d;
        s.e = dm.e;
        s.hq = 4;
        s.h = 2;
        s.dtype = dtype;
        s.gate = gate;
        s.schedule = schedules[counter % schedules.size()];
        s.layout = counter % 2 ? RotaryLayout::Half : RotaryLayout::Interleaved;
        s.rotaryDims = counter % 3 == 0 ? s.d / 2 : 0;
        s.rotaryBase = 300.0;
        s.rateScale = 1.25;
        s.length = s.relativeSchedule() ? 6 : 0;
        c.chunk = f == runtime::Formulation::Chunked ? 8 : 0;
        std::ostringstream name;
        name << runtime::formulationName(f) << "_" << s.variantName();
        c.name = name.str();
        ++counter;
        cases.push_back(c);
      }
  }
  return cases;
}

class Sweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(Sweep, MatchesTheReferenceAtEveryLength) {
  const SweepCase &c = GetParam();
  CompiledLayer layer(c.spec, c.formulation, c.chunk);
  ASSERT_TRUE(layer.error().empty()) << layer.error();
  bool state = c.formulation != runtime::Formulation::Attention;
  // C: the chunk, or the attention kernel's tile of queries.
  int64_t C = state ? (c.chunk ? c.chunk : 8) : c.spec.resolvedBlockTokens();
  for (int64_t T : {int64_t(1), C - 1, C, C + 1, 3 * C + 5}) {
    LayerCase input = randomLayer(c.spec, /*B=*/2, T,
                                  /*seed=*/unsigned(T * 977 + c.spec.p),
                                  /*withState=*/state);
    KernelResult got = layer.run(input);
    ASSERT_TRUE(got.error.empty()) << got.error;
    ReferenceResult want = runReference(c.spec, input);
    ASSERT_TRUE(want.error.empty()) << want.error;
    expectMatches(got, want, c.spec.dtype, state,
                  c.name + " T = " + std::to_string(T));
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, Sweep, ::testing::ValuesIn(sweep()),
                         [](const ::testing::TestParamInfo<SweepCase> &info) {
                           return info.param.name;
                         });

} // namespace
