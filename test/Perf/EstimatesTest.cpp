//===- EstimatesTest.cpp - Estimated launches against counted ones
//---------===//
//
// select-formulation and the C API's `auto` predict a formulation's time from
// launches estimated from the sizes alone (KernelEstimates.h). Here the
// same kernels run on the emulator at sizes other than the ones the
// per-unit figures came from (d, p, dtype, GQA, rotary, T), and each
// kernel's predicted H100 time from the estimate must be within 1.5x of the
// prediction from the emulator's counts (same resources), and the layer's
// within 1.25x. A generator that changes its work shows up here.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Runtime/EmulatorBackend.h"
#include "sympow/Runtime/HostLayer.h"
#include "sympow/Runtime/KernelEstimates.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace sympow;

namespace {

struct Case {
  const char *variant;
  int64_t B, T;
  bool state;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.variant << " B=" << c.B << " T=" << c.T;
}

class Estimates : public testing::TestWithParam<Case> {};

TEST_P(Estimates, PredictedTimeMatchesTheEmulatorsCounts) {
  const Case &c = GetParam();
  auto parsed = parseLayerVariant(c.variant);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const LayerKernelRequest &request = parsed->requests.front();
  auto backend = runtime::createEmulatorBackend();
  auto compiled = compileLayerKernels(request, KernelTarget::EmulatorShared, {},
                                      defaultKernelCacheDir());
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  runtime::KernelLibrary library(*backend, (*compiled)->images(),
                                 (*compiled)->infos());
  runtime::LayerVariant v = layerVariant(request);

  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0, 1);
  auto fill = [&](std::vector<double> &x, int64_t n) {
    x.resize(n);
    for (double &value : x)
      value = normal(rng);
  };
  runtime::HostLayer host;
  host.B = c.B;
  host.T = c.T;
  fill(host.q, c.B * c.T * v.hq * v.d);
  fill(host.k, c.B * c.T * v.h * v.d);
  fill(host.v, c.B * c.T * v.h * v.e);
  if (v.hasLogG()) {
    fill(host.logG, c.B * c.T * v.h);
    for (double &g : host.logG)
      g = -std::log1p(std::exp(-(g + 4)));
  }
  if (v.hasBeta())
    host.beta.assign(c.B * c.T * v.h, 0.5);
  if (c.state) {
    host.s.assign(c.B * v.h * v.stateDim() * v.e, 0);
    host.z.assign(c.B * v.h * v.stateDim(), 0);
    host.c.assign(c.B * v.h, 0);
  }
  auto out = runtime::runLayerFromHost(*backend, library, v, host);
  ASSERT_FALSE(out.isError()) << out.message();
  std::vector<runtime::EmulatorLaunch> launches =
      runtime::takeEmulatorLaunches(*backend);

  LayerSizes sizes = layerSizes(v, c.B, c.T, c.state);
  std::vector<KernelEstimate> estimates =
      estimateKernels(sizes, v.formulation, v.chunk);
  ASSERT_EQ(estimates.size(), launches.size());
  const GpuSpec &gpu = GpuSpec::h100();
  double counted = 0, estimated = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    ASSERT_EQ(estimates[i].kernel, launches[i].kernel);
    EXPECT_EQ(estimates[i].counts.grid, launches[i].counts.grid)
        << estimates[i].kernel;
    KernelPrediction fromCounts =
        predictKernel(launches[i].counts, estimates[i].resources, gpu);
    KernelPrediction fromEstimate =
        predictKernel(estimates[i].counts, estimates[i].resources, gpu);
    counted += fromCounts.seconds;
    estimated += fromEstimate.seconds;
    double ratio = fromEstimate.seconds / fromCounts.seconds;
    EXPECT_GT(ratio, 1 / 1.5)
        << estimates[i].kernel << ": estimate " << fromEstimate.explanation
        << "; counts " << fromCounts.explanation;
    EXPECT_LT(ratio, 1.5) << estimates[i].kernel << ": estimate "
                          << fromEstimate.explanation << "; counts "
                          << fromCounts.explanation;
  }
  EXPECT_GT(estimated / counted, 1 / 1.25);
  EXPECT_LT(estimated / counted, 1.25);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, Estimates,
    testing::Values(
        Case{"p=2,d=32,e=32,hq=4,h=2,dtype=bf16,gate=data,"
             "formulation=chunked,chunk=64",
             1, 256, false},
        Case{"p=2,d=64,e=32,hq=2,h=2,dtype=bf16,gate=data,rope=learned,"
             "formulation=chunked,chunk=32",
             2, 128, false},
        Case{"p=4,d=16,e=16,hq=2,h=1,dtype=f16,formulation=chunked,chunk=32", 1,
             128, false},
        Case{"p=2,d=32,e=32,hq=2,h=1,dtype=bf16,gate=data,rope=learned,"
             "formulation=chunked,chunk=128",
             1, 320, false},
        Case{"p=2,d=16,e=32,hq=2,h=2,dtype=f16,formulation=chunked,chunk=96", 1,
             200, false},
        Case{"p=2,d=32,e=32,hq=4,h=2,dtype=bf16,gate=data,"
             "formulation=attention",
             1, 512, false},
        Case{"p=2,d=32,e=64,hq=2,h=2,dtype=bf16,rope=learned,"
             "formulation=attention",
             1, 256, false},
        Case{"p=2,d=32,e=32,hq=4,h=2,dtype=bf16,gate=data,rope=learned,"
             "formulation=recurrent",
             4, 1, true},
        Case{"p=2,d=64,e=64,hq=2,h=2,dtype=bf16,formulation=recurrent", 1, 4,
             true}));

} // namespace
