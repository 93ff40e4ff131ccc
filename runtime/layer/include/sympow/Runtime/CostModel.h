//===- CostModel.h - Cost of each formulation of a layer --------*- C++ -*-===//
//
// A roofline estimate: FLOPs and global-memory bytes of each formulation as
// a function of B, T, Hq, H, d, e, p and the chunk size C, turned into time
// on a target with given peak compute and bandwidth. docs/CostModel.md
// derives every term. The compiler chooses a layer's formulation with it;
// the C API picks among a library's compiled formulations with it.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_COSTMODEL_H
#define SYMPOW_RUNTIME_COSTMODEL_H

#include "sympow/Runtime/Layer.h"

#include <cstdint>

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
  bool hasInitialState = false;
};

struct Cost {
  double flops = 0;
  double bytes = 0;
};

/// Peak throughput of the target the kernels run on.
struct MachineModel {
  double flopsPerSecond;
  double bytesPerSecond;
  /// An A100-class sm_80 part; tensor cores for 16-bit inputs, FMA for f32.
  static MachineModel sm80(int64_t elementBytes);
};

Cost attentionCost(const LayerSizes &sizes);
Cost chunkedCost(const LayerSizes &sizes, int64_t chunkSize);
Cost recurrentCost(const LayerSizes &sizes);

/// Roofline time: whichever of compute and memory is slower.
double estimatedSeconds(const Cost &cost, const MachineModel &machine);

/// The formulation the cost model prefers: recurrent for one token against
/// a state, else the faster of attention and chunked(chunkSize).
runtime::Formulation preferredFormulation(const LayerSizes &sizes,
                                          int64_t chunkSize);

} // namespace sympow

#endif // SYMPOW_RUNTIME_COSTMODEL_H
