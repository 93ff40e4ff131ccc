//===- CostModel.h - Cost of each formulation of a layer --------*- C++ -*-===//
//
// The minimal work of each formulation: FLOPs and global-memory bytes as a
// function of B, T, Hq, H, d, e, p and the chunk size C (docs/CostModel.md
// derives every term): the roofline floor and the TFLOP/s sympow-bench
// reports. The formulation choice predicts time with the calibrated GPU
// model instead (preferredFormulation; docs/Performance.md).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_COSTMODEL_H
#define SYMPOW_RUNTIME_COSTMODEL_H

#include "sympow/Runtime/Layer.h"

#include <cstdint>
#include <vector>

namespace sympow {

/// The sizes a layer's cost depends on.
struct LayerSizes {
  int64_t batch = 1;        // B
  int64_t seqLen = 1;       // T
  int64_t queryHeads = 1;   // Hq
  int64_t keyHeads = 1;     // H
  int64_t headDim = 64;     // d
  int64_t valueDim = 64;    // e
  int64_t power = 2;        // p
  int64_t elementBytes = 2; // bytes of one q/k/v element
  bool f16 = false;         // 16-bit elements are f16 rather than bf16
  bool hasInitialState = false;
  bool learnedSchedule = false; // the learned rotary schedule (beta read)
  bool rotatingSchedule =
      false; // any rotary schedule (chunk_counts, chunk_keys)
  bool relativeSchedule = false; // warped or blend: attention only
};

/// D = C(d + p - 1, p) of `sizes`, as a double (no overflow for any p).
double embeddingDim(const LayerSizes &sizes);

/// Bytes of the token inputs every formulation reads once: q, k, v, log_g
/// (f32, counted for every gate kind) and beta where the schedule is
/// learned.
double tokenInputBytes(const LayerSizes &sizes);
/// Bytes of y, written once.
double tokenOutputBytes(const LayerSizes &sizes);

/// The sizes of a call of `variant` on B sequences of T tokens.
LayerSizes layerSizes(const runtime::LayerVariant &variant, int64_t B,
                      int64_t T, bool initialState);

struct Cost {
  double flops = 0;
  double bytes = 0;
};

Cost attentionCost(const LayerSizes &sizes);
Cost chunkedCost(const LayerSizes &sizes, int64_t chunkSize);
Cost recurrentCost(const LayerSizes &sizes);

/// The least work of the formulation: its FLOPs, and the bytes no kernel
/// can avoid (q, k, v and the gates read once, y written once, an initial
/// state read and the final state written once): the roofline floor's
/// input and the reference for measured TFLOP/s and GB/s.
Cost minimalCost(const LayerSizes &sizes, runtime::Formulation formulation,
                 int64_t chunkSize);

struct GpuSpec;

/// The formulation the calibrated model prefers on `gpu`: recurrent for one
/// token against a state, else the faster of attention and chunked(chunkSize)
/// in predicted time (KernelEstimates.h, GpuModel.h; docs/Performance.md).
runtime::Formulation preferredFormulation(const LayerSizes &sizes,
                                          int64_t chunkSize,
                                          const GpuSpec &gpu);

/// Of `candidates` (chunk sizes the kernels build), the one whose chunked
/// layer the calibrated model predicts fastest on `gpu` (the first of equal
/// ones); 0 when there are none.
int64_t preferredChunk(const LayerSizes &sizes,
                       const std::vector<int64_t> &candidates,
                       const GpuSpec &gpu);

} // namespace sympow

#endif // SYMPOW_RUNTIME_COSTMODEL_H
