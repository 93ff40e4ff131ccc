//===- GpuModel.h - Kernel time on a GPU from counts and resources -*- C++
//-*-===//
//
// Turns what a kernel launch does (sympow/Support/KernelCounts.h: counted by
// the emulator, or estimated from a layer's sizes) and what it holds
// (registers and shared memory from ptxas) into a predicted time on one GPU:
// occupancy, the SMs the grid fills and in how many waves, time on each
// unit (tensor cores, FP32, FP64, SFU, DRAM, shared memory, issue) and a
// latency bound for the heaviest block (Little's law: the bytes a block
// keeps in flight against memory latency). docs/Performance.md derives it
// and lists every constant: the data sheet's peaks plus a few efficiencies
// fitted once, globally, on the H100 measurements (never per kernel).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_GPUMODEL_H
#define SYMPOW_RUNTIME_GPUMODEL_H

#include "sympow/Support/KernelCounts.h"

#include <string>

namespace sympow {

/// One GPU: data-sheet figures and the model's global efficiencies.
struct GpuSpec {
  const char *name; // "H100 SXM"
  const char *arch; // "sm_90a"
  int sms;          // streaming multiprocessors
  double clockHz;   // sustained SM clock
  // Per SM and clock, thread-level (lanes) or multiply-adds (tensor).
  double tensorF16MacsPerClk;  // dense f16/bf16 multiply-adds, mma.sync
  double tensorTF32MacsPerClk; // dense tf32 multiply-adds, mma.sync
  double fp32LanesPerClk;      // FP32 FMA/ALU lanes
  double fp64LanesPerClk;      // FP64 lanes
  double sfuLanesPerClk;       // special-function lanes
  double intLanesPerClk;       // integer lanes
  double issueWarpInstrPerClk; // warp instructions issued per SM per clock
  double sharedBytesPerClk;    // shared-memory bandwidth per SM
  double dramBytesPerSecond;   // HBM peak
  double memoryLatencySeconds; // a DRAM load's round trip, unloaded
  double launchSeconds;        // an empty kernel between CUDA events, as timed
  // Resources per SM.
  int registersPerSM;
  int maxThreadsPerSM;
  int maxBlocksPerSM;
  int sharedBytesPerSM; // usable by blocks
  // Fitted once on the H100 measurements (docs/Performance.md).
  double dramEfficiency;     // share of dramBytesPerSecond kernels reach
  double tensorEfficiency;   // share of the tensor peak mma.sync reaches
  double wgmmaEfficiency;    // share wgmma reaches (assumed; not measured)
  double loadsInFlight;      // independent global loads a thread keeps pending
  double warpsToHideLatency; // warps per scheduler for a full issue rate
  double exposedShare;       // share of the shorter of compute and memory time
                             // that the other does not hide

  static const GpuSpec &h100();
  static const GpuSpec &a100();
  /// The model for "sm_90a"/"sm_90" (H100) or "sm_80" (A100); nullptr else.
  static const GpuSpec *forArch(const std::string &arch);
};

/// What ptxas reports for a kernel on the model's arch.
struct KernelResources {
  int registers = 0;       // per thread
  int64_t sharedBytes = 0; // static + dynamic, per block
};

/// The units a kernel can be bound by.
enum class Bound {
  Tensor,
  FP32,
  FP64,
  SFU,
  Int,
  Issue,
  Shared,
  DRAM,
  Latency,
  HeaviestBlock
};
const char *boundName(Bound bound);

/// The model's reading of one launch.
struct KernelPrediction {
  double seconds = 0;
  Bound bound = Bound::DRAM;
  // Occupancy.
  int blocksPerSM = 0;        // resident blocks per SM
  const char *occupancyLimit; // "registers", "shared memory", "threads",
                              // "blocks", or "the grid" when it is smaller
  double occupancy = 0;       // resident warps / maximum warps
  int activeSMs = 0;          // SMs the grid uses
  double waves = 0;           // grid / (blocksPerSM * SMs): < 1 leaves SMs idle
  // Time on each unit if it were the only limit, seconds.
  double tensor = 0, fp32 = 0, fp64 = 0, sfu = 0, intAlu = 0, issue = 0,
         shared = 0, dram = 0;
  double latency = 0;       // the heaviest block's memory chain (Little's law)
  double heaviestBlock = 0; // the heaviest block's work at its SM share
  /// One sentence: what limits the kernel and why, with the figures.
  std::string explanation;
};

/// The roofline floor: `flops` on the tensor cores (16-bit rate; f32 FMA
/// rate when `elementBytes` is 4) and `bytes` at the DRAM peak, whichever
/// is slower. No efficiencies: the floor no kernel can beat.
double rooflineSeconds(double flops, double bytes, int64_t elementBytes,
                       const GpuSpec &gpu);

KernelPrediction predictKernel(const LaunchCounts &counts,
                               const KernelResources &resources,
                               const GpuSpec &gpu);

} // namespace sympow

#endif // SYMPOW_RUNTIME_GPUMODEL_H
