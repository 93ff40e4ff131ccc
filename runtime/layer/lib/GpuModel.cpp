//===- GpuModel.cpp - Kernel time on a GPU from counts and resources ------===//
//
// docs/Performance.md derives every term. In short:
//   occupancy from registers, shared memory and threads per block;
//   throughput time of each unit over the SMs the grid uses;
//   the issue rate scaled by how many warps each scheduler has to hide
//   latency with;
//   the memory chain: a thread's global loads in rounds of `loadsInFlight`,
//   each a memory latency, for the heaviest block and for the rounds of
//   blocks an SM runs one after another (Little's law), added to the DRAM
//   time (a loaded memory system queues);
//   the heaviest block's own work at its share of one SM (a causal grid's
//   last block).
// The kernel takes the largest of these.
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/GpuModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace sympow;

const GpuSpec &GpuSpec::h100() {
  static const GpuSpec spec = [] {
    GpuSpec g{};
    g.name = "H100 SXM";
    g.arch = "sm_90a";
    g.sms = 132;
    g.clockHz = 1.83e9; // the SM clock the baseline ran at (not locked)
    g.tensorF16MacsPerClk = 2048; // 989 TFLOP/s dense bf16 at 1.83 GHz
    g.tensorTF32MacsPerClk = 1024;
    g.fp32LanesPerClk = 128;
    g.fp64LanesPerClk = 64;
    g.sfuLanesPerClk = 16;
    g.intLanesPerClk = 64;
    g.issueWarpInstrPerClk = 4;
    g.sharedBytesPerClk = 128;
    g.dramBytesPerSecond = 3.35e12;
    g.memoryLatencySeconds = 600e-9;
    // Measured (scripts/gpu-constants.cu, perf/h100-measured.json).
    g.launchSeconds = 3.1e-6;
    g.registersPerSM = 65536;
    g.maxThreadsPerSM = 2048;
    g.maxBlocksPerSM = 32;
    g.sharedBytesPerSM = 228 * 1024;
    g.dramEfficiency = 0.7;
    g.tensorEfficiency = 0.6;
    // No sympow kernel has run wgmma on a GPU yet: FlashAttention-3 reports
    // 75% of the bf16 peak for its forward, CUTLASS's GEMMs about 80%.
    g.wgmmaEfficiency = 0.75;
    g.loadsInFlight = 1.8;
    g.warpsToHideLatency = 8;
    g.exposedShare = 0.4;
    return g;
  }();
  return spec;
}

const GpuSpec &GpuSpec::a100() {
  static const GpuSpec spec = [] {
    GpuSpec g = h100();
    g.name = "A100 SXM 80GB";
    g.arch = "sm_80";
    g.sms = 108;
    g.clockHz = 1.41e9;
    g.tensorF16MacsPerClk = 1024; // 312 TFLOP/s dense bf16
    g.tensorTF32MacsPerClk = 512;
    g.fp32LanesPerClk = 64;
    g.fp64LanesPerClk = 32;
    g.dramBytesPerSecond = 2.039e12;
    g.sharedBytesPerSM = 164 * 1024;
    // mma.sync is the native instruction here; the H100's efficiency also
    // covers mma.sync against a wgmma peak, so the A100 keeps a higher one.
    g.tensorEfficiency = 0.8;
    g.wgmmaEfficiency = 0; // no wgmma before sm_90a
    // launchSeconds stays the H100's: no A100 measurement yet.
    return g;
  }();
  return spec;
}

const GpuSpec *GpuSpec::forArch(const std::string &arch) {
  if (arch == "sm_90a" || arch == "sm_90")
    return &h100();
  if (arch == "sm_80")
    return &a100();
  return nullptr;
}

const char *sympow::boundName(Bound bound) {
  switch (bound) {
  case Bound::Tensor:
    return "tensor";
  case Bound::FP32:
    return "fp32";
  case Bound::FP64:
    return "fp64";
  case Bound::SFU:
    return "sfu";
  case Bound::Int:
    return "int";
  case Bound::Issue:
    return "issue";
  case Bound::Shared:
    return "shared";
  case Bound::DRAM:
    return "dram";
  case Bound::Latency:
    return "latency";
  case Bound::HeaviestBlock:
    return "heaviest-block";
  }
  return "?";
}

double sympow::rooflineSeconds(double flops, double bytes, int64_t elementBytes,
                               const GpuSpec &gpu) {
  double perSM = elementBytes == 4 ? 2.0 * gpu.fp32LanesPerClk
                                   : 2.0 * gpu.tensorF16MacsPerClk;
  double flopsPerSecond = perSM * gpu.clockHz * gpu.sms;
  return std::max(flops / flopsPerSecond, bytes / gpu.dramBytesPerSecond);
}

namespace {

struct Occupancy {
  int blocksPerSM;
  const char *limit;
};

/// Resident blocks per SM: registers are allocated per warp in units of
/// 256, shared memory per block with 1 KiB the driver reserves.
Occupancy occupancy(const LaunchCounts &c, const KernelResources &r,
                    const GpuSpec &g) {
  int64_t threads = std::max<int64_t>(1, c.threadsPerBlock());
  int64_t warps = (threads + 31) / 32;
  Occupancy o{g.maxBlocksPerSM, "blocks"};
  int64_t byThreads = g.maxThreadsPerSM / (warps * 32);
  if (byThreads < o.blocksPerSM)
    o = {int(byThreads), "threads"};
  int64_t regsPerWarp = (std::max(1, r.registers) * 32 + 255) / 256 * 256;
  int64_t byRegs = g.registersPerSM / (regsPerWarp * warps);
  if (byRegs < o.blocksPerSM)
    o = {int(byRegs), "registers"};
  int64_t shared = r.sharedBytes > 0
                       ? r.sharedBytes
                       : int64_t(c.staticSharedBytes + c.dynamicSharedBytes);
  if (shared > 0) {
    int64_t byShared = g.sharedBytesPerSM / (shared + 1024);
    if (byShared < o.blocksPerSM)
      o = {int(byShared), "shared memory"};
  }
  o.blocksPerSM = std::max(1, o.blocksPerSM);
  return o;
}

/// The warpgroup MMAs' warp instructions: each warp of the warpgroup
/// issues one where the GPU has wgmma; before sm_90a the ops run as
/// mma.sync per warp (WarpgroupMmaSync.cpp): N / 8 mma.sync m16n8k16 and
/// as many ldmatrix for B, one for A.
double warpgroupMmaInstructions(const OpCounts &c, const GpuSpec &g) {
  if (!c.wgmma)
    return 0;
  if (g.wgmmaEfficiency > 0)
    return 4.0 * double(c.wgmma);
  double n = double(c.wgmmaMultiplyAdds) / (double(c.wgmma) * 64 * 16);
  return 4.0 * double(c.wgmma) * (2 * n / 8 + 1);
}

/// Warp instructions: thread-level operations over 32 lanes, plus the
/// warp collectives.
double warpInstructions(const OpCounts &c, const GpuSpec &g) {
  double thread =
      double(c.globalLoads + c.globalStores + c.sharedLoads + c.sharedStores +
             c.fp32Fma + c.fp32Alu + c.fp64 + c.sfu + c.intAlu);
  double warp = double(c.ldmatrix + c.shuffles + c.bulkCopies);
  for (int i = 0; i < kNumMmaShapes; ++i)
    warp += double(c.mma[i]);
  return thread / 32.0 + warp + warpgroupMmaInstructions(c, g);
}

/// Passes of the shared-memory pipe, one a clock: the wavefronts the
/// emulator counts (bank conflicts take more), or, where counts predate them
/// (estimates, older fixtures), the bytes at the pipe's width.
double sharedWavefronts(const OpCounts &c, const GpuSpec &g) {
  double wavefronts = double(c.sharedLoadWavefronts + c.sharedStoreWavefronts);
  if (wavefronts > 0)
    return wavefronts;
  return double(c.sharedLoadBytes + c.sharedStoreBytes) / g.sharedBytesPerClk;
}

/// Seconds of `c`'s work on each unit at `smShare` SMs' worth of the GPU.
struct UnitTimes {
  double tensor, fp32, fp64, sfu, intAlu, issue, shared;
  double max() const {
    return std::max({tensor, fp32, fp64, sfu, intAlu, issue, shared});
  }
};

UnitTimes unitTimes(const OpCounts &c, double sms, double issueShare,
                    const GpuSpec &g) {
  double clk = g.clockHz * sms;
  double f16 = 0, tf32 = 0;
  for (int i = 0; i < kNumMmaShapes; ++i) {
    auto shape = static_cast<MmaShape>(i);
    double macs = double(c.mma[i]) * double(mmaMultiplyAdds(shape));
    (mmaIsTF32(shape) ? tf32 : f16) += macs;
  }
  UnitTimes t;
  t.tensor = (f16 / g.tensorF16MacsPerClk + tf32 / g.tensorTF32MacsPerClk) /
             (g.tensorEfficiency * clk);
  // Without wgmma the warpgroup MMAs are mma.sync's work.
  if (c.wgmmaMultiplyAdds)
    t.tensor +=
        double(c.wgmmaMultiplyAdds) /
        (g.tensorF16MacsPerClk *
         (g.wgmmaEfficiency > 0 ? g.wgmmaEfficiency : g.tensorEfficiency) *
         clk);
  t.fp32 = double(c.fp32Fma + c.fp32Alu) / (g.fp32LanesPerClk * clk);
  t.fp64 = double(c.fp64) / (g.fp64LanesPerClk * clk);
  t.sfu = double(c.sfu) / (g.sfuLanesPerClk * clk);
  t.intAlu = double(c.intAlu) / (g.intLanesPerClk * clk);
  t.issue =
      warpInstructions(c, g) / (g.issueWarpInstrPerClk * issueShare * clk);
  t.shared = sharedWavefronts(c, g) / clk;
  return t;
}

std::string format(const char *fmt, double a = 0, double b = 0, double c = 0,
                   double d = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, fmt, a, b, c, d);
  return buffer;
}

std::string timeText(double seconds) {
  if (seconds >= 1e-3)
    return format("%.3g ms", seconds * 1e3);
  return format("%.3g us", seconds * 1e6);
}

} // namespace

KernelPrediction sympow::predictKernel(const LaunchCounts &c,
                                       const KernelResources &r,
                                       const GpuSpec &g) {
  KernelPrediction p;
  double grid = double(std::max<uint64_t>(1, c.blocks()));
  double threads = double(std::max<uint64_t>(1, c.threadsPerBlock()));
  double warpsPerBlock = std::ceil(threads / 32.0);

  Occupancy occ = occupancy(c, r, g);
  p.blocksPerSM = occ.blocksPerSM;
  p.occupancyLimit = occ.limit;
  p.activeSMs = int(std::min<double>(g.sms, grid));
  double resident = std::min<double>(occ.blocksPerSM, std::ceil(grid / g.sms));
  if (resident < occ.blocksPerSM)
    p.occupancyLimit = "the grid";
  p.occupancy = resident * warpsPerBlock / (g.maxThreadsPerSM / 32.0);
  p.waves = grid / (double(occ.blocksPerSM) * g.sms);

  // Each of the 4 schedulers of an SM issues one warp instruction a clock
  // when it has enough warps to cover dependent latencies.
  double warpsPerScheduler = resident * warpsPerBlock / 4.0;
  double issueShare = std::min(1.0, warpsPerScheduler / g.warpsToHideLatency);

  UnitTimes all = unitTimes(c.total, p.activeSMs, issueShare, g);
  p.tensor = all.tensor;
  p.fp32 = all.fp32;
  p.fp64 = all.fp64;
  p.sfu = all.sfu;
  p.intAlu = all.intAlu;
  p.issue = all.issue;
  p.shared = all.shared;
  p.dram = double(c.globalLoadDistinctBytes + c.globalStoreDistinctBytes) /
           (g.dramBytesPerSecond * g.dramEfficiency);

  // The memory chain (Little's law): a thread has `loadsInFlight` global
  // loads pending at a time, each waits a memory latency. Blocks resident
  // together overlap their chains; an SM runs `rounds` of them in turn.
  // Loads of bytes the launch already read (by this thread or another) hit
  // a cache and leave the chain: only the launch's share of distinct bytes
  // waits on DRAM.
  double perLoad = g.memoryLatencySeconds / g.loadsInFlight;
  double missShare = c.total.globalLoadBytes
                         ? std::min(1.0, double(c.globalLoadDistinctBytes) /
                                             double(c.total.globalLoadBytes))
                         : 1.0;
  double heavyLoads = double(c.heaviest.globalLoads) / threads * missShare;
  double avgLoads = double(c.total.globalLoads) / grid / threads * missShare;
  double rounds = std::max(1.0, grid / (p.activeSMs * resident));
  p.latency = std::max(heavyLoads, rounds * avgLoads) * perLoad;

  // The heaviest block alone: its work at its share of one SM (the SM's
  // resident blocks split it), which a grid of uneven blocks ends on. A
  // grid of equal blocks runs in whole rounds: an SM with one more round
  // than the work asks (136 blocks on 132 SMs, one resident: two rounds
  // where the work asks 1.03) runs that many blocks in turn. Uneven blocks
  // (causal attention) fill the last round with the small ones.
  UnitTimes heavy = unitTimes(c.heaviest, 1.0 / resident, issueShare, g);
  double heavyOps = double(c.heaviest.operations());
  double averageShare =
      heavyOps > 0 ? double(c.total.operations()) / grid / heavyOps : 1.0;
  double wholeRounds = averageShare > 0.9 ? std::ceil(rounds) : 1.0;
  p.heaviestBlock = heavy.max() * wholeRounds;

  // Compute (the busiest unit) and memory (DRAM traffic plus the latency
  // chain) overlap across warps, but not completely: a share of the shorter
  // one stays exposed.
  struct Term {
    Bound bound;
    double seconds;
  };
  Term compute[] = {
      {Bound::Tensor, p.tensor}, {Bound::FP32, p.fp32},
      {Bound::FP64, p.fp64},     {Bound::SFU, p.sfu},
      {Bound::Int, p.intAlu},    {Bound::Issue, p.issue},
      {Bound::Shared, p.shared}, {Bound::HeaviestBlock, p.heaviestBlock},
  };
  const Term *busiest = &compute[0];
  for (const Term &t : compute)
    if (t.seconds > busiest->seconds)
      busiest = &t;
  Term memory{p.latency > p.dram ? Bound::Latency : Bound::DRAM,
              p.dram + p.latency};
  const Term &top = memory.seconds > busiest->seconds ? memory : *busiest;
  // Every launch also pays its start and end, which an empty kernel shows.
  p.seconds = std::max(memory.seconds, busiest->seconds) +
              g.exposedShare * std::min(memory.seconds, busiest->seconds) +
              g.launchSeconds;
  p.bound = top.bound;

  // One sentence on what limits it.
  std::string fill =
      format("%.0f blocks on %.0f SMs", grid, double(g.sms)) +
      format(" (%.2g waves, %.0f resident per SM, ",
             grid / (double(occ.blocksPerSM) * g.sms), resident) +
      format("occupancy %.0f%% limited by ", p.occupancy * 100) +
      p.occupancyLimit + ")";
  switch (p.bound) {
  case Bound::Latency:
    p.explanation =
        "latency-bound: " + fill +
        format("; each thread of the heaviest block waits on %.0f global "
               "loads from DRAM in turn (%.1f in flight, %.0f ns each), ",
               heavyLoads, g.loadsInFlight, g.memoryLatencySeconds * 1e9) +
        timeText(p.latency) + " of memory latency against " + timeText(p.dram) +
        " of DRAM traffic";
    break;
  case Bound::DRAM:
    p.explanation =
        "DRAM-bound: " +
        format("%.3g MB distinct global bytes at %.0f%% of ",
               double(c.globalLoadDistinctBytes + c.globalStoreDistinctBytes) /
                   1e6,
               g.dramEfficiency * 100) +
        format("%.2f TB/s", g.dramBytesPerSecond / 1e12) + " (" +
        timeText(p.dram) + ") plus " + timeText(p.latency) +
        " of memory latency; " + fill;
    break;
  case Bound::HeaviestBlock:
    p.explanation =
        "heaviest-block-bound: block " +
        format("(%.0f, %.0f, %.0f)", c.heaviestBlock[0], c.heaviestBlock[1],
               c.heaviestBlock[2]) +
        format(" does %.1fx the average block's work, ",
               double(c.heaviest.operations()) /
                   std::max(1.0, double(c.total.operations()) / grid)) +
        timeText(p.heaviestBlock) + " at its share of one SM; " + fill;
    break;
  case Bound::Issue:
    p.explanation =
        "issue-bound: " +
        format("%.3g M warp instructions, %.1f warps per scheduler to hide "
               "latency (%.0f%% of the issue rate); ",
               warpInstructions(c.total, g) / 1e6, warpsPerScheduler,
               issueShare * 100) +
        fill;
    break;
  default:
    p.explanation = std::string(boundName(p.bound)) +
                    "-bound: " + timeText(p.seconds) + " of " +
                    boundName(p.bound) + " work over the SMs the grid uses; " +
                    fill;
    break;
  }
  return p;
}
