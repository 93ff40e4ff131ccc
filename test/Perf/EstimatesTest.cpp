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
#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/EmulatorBackend.h"
#include "sympow/Runtime/GpuModel.h"
#include "sympow/Runtime/HostLayer.h"
#include "sympow/Runtime/KernelEstimates.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
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

/// Runs `c`'s layer on the emulator with random inputs: its launches.
std::vector<runtime::EmulatorLaunch> runOnEmulator(const Case &c) {
  auto parsed = parseLayerVariant(c.variant);
  if (!parsed) {
    ADD_FAILURE() << llvm::toString(parsed.takeError());
    return {};
  }
  const LayerKernelRequest &request = parsed->requests.front();
  auto backend = runtime::createEmulatorBackend();
  auto compiled = compileLayerKernels(request, KernelTarget::EmulatorShared, {},
                                      defaultKernelCacheDir());
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return {};
  }
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
  EXPECT_FALSE(out.isError()) << out.message();
  return runtime::takeEmulatorLaunches(*backend);
}

TEST_P(Estimates, PredictedTimeMatchesTheEmulatorsCounts) {
  const Case &c = GetParam();
  auto parsed = parseLayerVariant(c.variant);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  runtime::LayerVariant v = layerVariant(parsed->requests.front());
  std::vector<runtime::EmulatorLaunch> launches = runOnEmulator(c);
  ASSERT_FALSE(launches.empty());

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

// The tile chunk_output's global loads fill the sectors they touch: each
// thread's run is one load of at most 16 bytes, so a warp's runs are
// adjacent (runs of 32 bytes as two loads used half of every sector: 1.9x
// the sectors, which the H100's profiler saw as 49% excess). Rotated q and
// k are left out: their per-element staging gathers each dim's partner.
TEST(AccessEfficiency, TileChunkOutputLoadsFillTheirSectors) {
  for (const char *variant :
       {"p=2,d=64,e=64,hq=2,h=2,dtype=bf16,gate=data,formulation=chunked,"
        "chunk=128",
        "p=2,d=32,e=32,hq=2,h=1,dtype=f16,gate=data,formulation=chunked,"
        "chunk=96"}) {
    std::vector<runtime::EmulatorLaunch> launches =
        runOnEmulator({variant, 1, 256, false});
    auto output = std::find_if(launches.begin(), launches.end(),
                               [](const runtime::EmulatorLaunch &l) {
                                 return l.kernel == "chunk_output";
                               });
    ASSERT_NE(output, launches.end()) << variant;
    const OpCounts &c = output->counts.total;
    ASSERT_GT(c.globalLoadSectors, 0u) << variant;
    EXPECT_LE(32.0 * double(c.globalLoadSectors),
              1.1 * double(c.globalLoadBytes))
        << variant << ": " << c.globalLoadBytes << " bytes in "
        << c.globalLoadSectors << " sectors";
  }
}

// Before sm_90a the warpgroup MMA ops run as mma.sync per warp
// (WarpgroupMmaSync.cpp): the A100 model predicts counts with wgmma as the
// same work in mma.sync m16n8k16 and ldmatrix (4 warps x N / 8 of each, and
// A's), while the H100 issues one wgmma a warp.
TEST(WarpgroupMma, RunsAsMmaSyncBeforeSm90) {
  const uint64_t wgmmas = 4096, n = 32;
  OpCounts wg;
  wg.wgmma = wgmmas;
  wg.wgmmaMultiplyAdds = wgmmas * 64 * 16 * n;
  wg.fp32Alu = 1 << 20;
  OpCounts sync = wg;
  sync.wgmma = sync.wgmmaMultiplyAdds = 0;
  sync.mma[int(MmaShape::M16N8K16F16)] = wgmmas * 4 * n / 8;
  sync.ldmatrix = wgmmas * 4 * (n / 8 + 1);
  auto predict = [](const OpCounts &c, const GpuSpec &gpu) {
    LaunchCounts launch;
    launch.grid = {264, 1, 1};
    launch.block = {256, 1, 1};
    launch.total = c;
    launch.heaviest = c;
    return predictKernel(launch, {118, 45000}, gpu);
  };
  KernelPrediction a = predict(wg, GpuSpec::a100()),
                   b = predict(sync, GpuSpec::a100());
  EXPECT_TRUE(std::isfinite(a.seconds));
  EXPECT_NEAR(a.seconds, b.seconds, 1e-6 * b.seconds)
      << a.explanation << " against " << b.explanation;
  // On the H100 the same counts issue a quarter as many warp instructions
  // for the MMAs and run at wgmma's rate: faster.
  EXPECT_LT(predict(wg, GpuSpec::h100()).seconds,
            predict(sync, GpuSpec::h100()).seconds);
}

// A variant without `chunk=` gets the candidate the model predicts fastest
// for its own heads and sizes; f32 has one candidate (no tile
// chunk_output), the short chunk.
TEST(DefaultChunk, IsTheFastestPredictedCandidate) {
  for (const char *variant :
       {"p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data",
        "p=2,d=64,e=64,hq=8,h=2,dtype=f16,gate=data,rope=learned,base=8192",
        "p=2,d=128,e=128,hq=4,h=4,dtype=bf16,gate=data",
        "p=2,d=64,e=64,hq=8,h=8,dtype=f32,gate=data"}) {
    auto parsed =
        parseLayerVariant(std::string(variant) + ",formulation=chunked");
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    const AttentionKernelSpec &spec = parsed->spec;
    int64_t chosen = parsed->requests.front().chunk;
    std::vector<int64_t> candidates = chunkCandidates(spec);
    ASSERT_NE(std::find(candidates.begin(), candidates.end(), chosen),
              candidates.end())
        << variant << ": chunk " << chosen;
    auto seconds = [&](int64_t chunk) {
      runtime::LayerVariant v =
          layerVariant({spec, runtime::Formulation::Chunked, chunk});
      return predictedLayerSeconds(layerSizes(v, 1, kDefaultChunkTokens, false),
                                   runtime::Formulation::Chunked, chunk,
                                   GpuSpec::h100());
    };
    for (int64_t chunk : candidates)
      EXPECT_LE(seconds(chosen), seconds(chunk))
          << variant << ": chunk " << chosen << " against " << chunk;
    if (spec.dtype == ElementKind::F32) {
      EXPECT_EQ(candidates.size(), 1u) << variant;
      EXPECT_EQ(chosen, shortChunk(spec)) << variant;
    } else {
      EXPECT_GT(candidates.size(), 1u) << variant;
    }
  }
}

// Issue 12's structure at its reference point (B = 1, 8 heads, T = 16K,
// p = 2, d = e = 64, bf16, data gate; and a decoding step): every kernel
// fills the H100 (at least one block per SM) or takes under 3% of the
// layer's predicted time, and the layer's distinct global bytes are within
// 1.3x of its formulation's least traffic.
TEST(IssueTwelve, KernelsFillTheGpuAndMoveTheFormulationsBytes) {
  const GpuSpec &gpu = GpuSpec::h100();
  struct Point {
    runtime::Formulation formulation;
    int64_t T;
    bool state;
  };
  for (Point point : {Point{runtime::Formulation::Attention, 16384, false},
                      Point{runtime::Formulation::Chunked, 16384, false},
                      Point{runtime::Formulation::Recurrent, 1, true}}) {
    std::string variant =
        std::string(
            "p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data,formulation=") +
        runtime::formulationName(point.formulation);
    auto parsed = parseLayerVariant(variant);
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    runtime::LayerVariant v = layerVariant(parsed->requests.front());
    LayerSizes sizes = layerSizes(v, 1, point.T, point.state);
    std::vector<KernelEstimate> kernels =
        estimateKernels(sizes, v.formulation, v.chunk);
    ASSERT_FALSE(kernels.empty()) << variant;
    double layer = predictedLayerSeconds(sizes, v.formulation, v.chunk, gpu);
    double bytes = 0;
    for (const KernelEstimate &k : kernels) {
      KernelPrediction p = predictKernel(k.counts, k.resources, gpu);
      EXPECT_TRUE(k.counts.blocks() >= uint64_t(gpu.sms) ||
                  p.seconds < 0.03 * layer)
          << variant << ", T = " << point.T << ": " << k.kernel << " launches "
          << k.counts.blocks() << " blocks and takes "
          << 100 * p.seconds / layer << "% of the layer";
      bytes += double(k.counts.globalLoadDistinctBytes) +
               double(k.counts.globalStoreDistinctBytes);
    }
    // The least traffic: q, k, v, the gates and y once, a state read and
    // written once; the chunked formulation's chunk states written and
    // read once besides (K and V re-read by attention's blocks come from
    // L2, not DRAM, so distinct bytes do not count them).
    double least = point.formulation == runtime::Formulation::Chunked
                       ? chunkedCost(sizes, v.chunk).bytes
                       : minimalCost(sizes, v.formulation, v.chunk).bytes;
    EXPECT_LE(bytes, 1.3 * least)
        << variant << ", T = " << point.T << ": " << bytes / 1e6
        << " MB against the formulation's " << least / 1e6 << " MB";
    // The same traffic does not fall below what the layer must read and
    // write (a sign of an estimate that lost a buffer).
    EXPECT_GE(bytes, minimalCost(sizes, v.formulation, v.chunk).bytes)
        << variant << ", T = " << point.T;
  }
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
        // e = 256: chunk_output's programs take 64 value columns each.
        Case{"p=2,d=32,e=256,hq=2,h=1,dtype=bf16,gate=data,"
             "formulation=chunked,chunk=128",
             1, 256, false},
        // Programs of two warpgroups, key steps of 64 by warpgroup MMAs.
        Case{"p=2,d=64,e=64,hq=2,h=1,dtype=bf16,gate=data,"
             "formulation=chunked,chunk=256",
             1, 640, false},
        Case{"p=2,d=32,e=32,hq=4,h=2,dtype=bf16,gate=data,"
             "formulation=attention",
             1, 512, false},
        Case{"p=2,d=32,e=64,hq=2,h=2,dtype=bf16,rope=learned,"
             "formulation=attention",
             1, 256, false},
        // e = 256: programs per row block take 64 value columns each.
        Case{"p=2,d=32,e=256,hq=2,h=1,dtype=bf16,gate=data,"
             "formulation=attention",
             1, 256, false},
        Case{"p=2,d=32,e=32,hq=4,h=2,dtype=bf16,gate=data,rope=learned,"
             "formulation=recurrent",
             4, 1, true},
        Case{"p=2,d=64,e=64,hq=2,h=2,dtype=bf16,formulation=recurrent", 1, 4,
             true}));

} // namespace
