//===- KernelEstimates.h - A formulation's launches, before any run -*- C++
//-*-===//
//
// What the compiler and the C API's `auto` know before a kernel runs: each
// formulation's launches estimated from the layer's sizes, in the GPU
// model's terms (sympow/Support/KernelCounts.h), so the calibrated model
// (GpuModel.h) predicts every formulation's time. Each estimate follows how
// today's generators build the kernel (compiler/lib/GPU): its grid and
// block, the loads a thread waits on, the tensor-core and FP32 work per unit
// of the kernel's loop; the per-unit figures are those the emulator counts
// for it. test/Perf/EstimatesTest.cpp holds each estimate's predicted time
// to the one from the emulator's counts, so a changed kernel shows here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_KERNELESTIMATES_H
#define SYMPOW_RUNTIME_KERNELESTIMATES_H

#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/GpuModel.h"

#include <string>
#include <vector>

namespace sympow {

struct KernelEstimate {
  std::string kernel; // the runtime's kernel name (layerKernelNames)
  LaunchCounts counts;
  KernelResources resources;
};

/// The launches of `formulation` for a layer of `sizes`, in launch order
/// (`chunk` for the chunked formulation).
std::vector<KernelEstimate> estimateKernels(const LayerSizes &sizes,
                                            runtime::Formulation formulation,
                                            int64_t chunk);

/// The model's time for the whole layer on `gpu`: the sum over its kernels.
double predictedLayerSeconds(const LayerSizes &sizes,
                             runtime::Formulation formulation, int64_t chunk,
                             const GpuSpec &gpu);

} // namespace sympow

#endif // SYMPOW_RUNTIME_KERNELESTIMATES_H
