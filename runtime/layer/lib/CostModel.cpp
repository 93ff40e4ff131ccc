//===- CostModel.cpp - Cost of each formulation of a layer ----------------===//
//
// Terms follow docs/CostModel.md. Counts are per layer, 1 FMA = 2 FLOPs.
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/KernelEstimates.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include <algorithm>

using namespace sympow;

namespace {
// Query rows a FlashAttention-style block keeps on chip: K and V are read
// once per block of this many queries.
constexpr double kQueryBlock = 64;
// FLOPs per score besides the dot products: log, scale by p, exp, gates.
constexpr double kScoreOverhead = 8;

/// Reading q, k, v and the gates, writing y.
double ioBytes(const LayerSizes &s) {
  return tokenInputBytes(s) + tokenOutputBytes(s);
}

/// One f32 state (S and Z) per batch and key/value head.
double stateBytes(const LayerSizes &s) {
  return static_cast<double>(s.batch) * s.keyHeads * embeddingDim(s) *
         (s.valueDim + 1) * 4.0;
}
} // namespace

double sympow::tokenInputBytes(const LayerSizes &s) {
  double tokens = static_cast<double>(s.batch) * s.seqLen;
  double perToken =
      (s.queryHeads * s.headDim + s.keyHeads * (s.headDim + s.valueDim)) *
          static_cast<double>(s.elementBytes) +
      4.0 * s.keyHeads * (s.learnedSchedule ? 2 : 1);
  return tokens * perToken;
}

double sympow::tokenOutputBytes(const LayerSizes &s) {
  return static_cast<double>(s.batch) * s.seqLen * s.queryHeads * s.valueDim *
         static_cast<double>(s.elementBytes);
}

LayerSizes sympow::layerSizes(const runtime::LayerVariant &v, int64_t B,
                              int64_t T, bool initialState) {
  LayerSizes s;
  s.batch = B;
  s.seqLen = T;
  s.queryHeads = v.hq;
  s.keyHeads = v.h;
  s.headDim = v.d;
  s.valueDim = v.e;
  s.power = v.p;
  s.elementBytes = v.dtype == runtime::DType::F32 ? 4 : 2;
  s.f16 = v.dtype == runtime::DType::F16;
  s.hasInitialState = initialState;
  s.learnedSchedule = v.hasBeta();
  s.rotatingSchedule = v.rotates();
  s.relativeSchedule = v.relativeSchedule();
  return s;
}

double sympow::embeddingDim(const LayerSizes &s) {
  if (std::optional<int64_t> dim = symmetricPowerDim(s.headDim, s.power))
    return double(*dim);
  // Beyond int64: the same product in floating point.
  double dim = 1;
  for (int64_t i = 1; i <= s.power; ++i)
    dim = dim * double(s.headDim - 1 + i) / double(i);
  return dim;
}

Cost sympow::attentionCost(const LayerSizes &s) {
  double t = static_cast<double>(s.seqLen);
  double pairs = static_cast<double>(s.batch) * s.queryHeads * t * (t + 1) / 2;
  Cost cost;
  cost.flops = pairs * (2.0 * s.headDim + 2.0 * s.valueDim + kScoreOverhead);
  double blocks = std::max(1.0, t / kQueryBlock);
  double kvBytes = static_cast<double>(s.batch) * s.keyHeads * t *
                   (s.headDim + s.valueDim) * s.elementBytes;
  cost.bytes = ioBytes(s) + (blocks - 1) * kvBytes;
  if (s.hasInitialState) {
    // Every query also meets the initial state through phi(q).
    Cost query = recurrentCost(s);
    cost.flops += query.flops * t;
    cost.bytes += stateBytes(s);
  }
  return cost;
}

Cost sympow::chunkedCost(const LayerSizes &s, int64_t chunkSize) {
  double t = static_cast<double>(s.seqLen);
  double c = static_cast<double>(std::max<int64_t>(1, chunkSize));
  double chunks = static_cast<double>((s.seqLen + chunkSize - 1) / chunkSize);
  double dim = embeddingDim(s);
  double b = static_cast<double>(s.batch);
  Cost cost;
  // Inside each chunk: causal attention over C tokens.
  double intraPairs = b * s.queryHeads * chunks * c * (c + 1) / 2;
  cost.flops +=
      intraPairs * (2.0 * s.headDim + 2.0 * s.valueDim + kScoreOverhead);
  // Each chunk's contribution phi(K)^T [V 1], per key/value head, plus
  // building phi(k) (p - 1 multiplies per coordinate).
  cost.flops += b * s.keyHeads * t * dim * (2.0 * (s.valueDim + 1) + s.power);
  // Queries against the state: phi(q) . [S Z], per query head.
  cost.flops += b * s.queryHeads * t * dim * (2.0 * (s.valueDim + 1) + s.power);
  // The discounted scan over chunk states.
  cost.flops += b * s.keyHeads * chunks * dim * (s.valueDim + 1) * 2.0;
  // Chunk states are written once and read once by the query pass.
  cost.bytes = ioBytes(s) + 2.0 * chunks * stateBytes(s);
  return cost;
}

Cost sympow::recurrentCost(const LayerSizes &s) {
  double dim = embeddingDim(s);
  double tokens = static_cast<double>(s.batch) * s.seqLen;
  Cost cost;
  // Per token: update S, Z with phi(k) (x) [v 1]; read them with phi(q).
  cost.flops = tokens * dim *
               (s.keyHeads * (3.0 * (s.valueDim + 1) + s.power) +
                s.queryHeads * (2.0 * (s.valueDim + 1) + s.power));
  // The state is read and written once per step.
  cost.bytes = ioBytes(s) + 2.0 * stateBytes(s) * s.seqLen;
  return cost;
}

runtime::Formulation sympow::preferredFormulation(const LayerSizes &s,
                                                  int64_t chunkSize,
                                                  const GpuSpec &gpu) {
  if (s.seqLen == 1 && s.hasInitialState)
    return runtime::Formulation::Recurrent;
  double attention =
      predictedLayerSeconds(s, runtime::Formulation::Attention, 0, gpu);
  double chunked =
      predictedLayerSeconds(s, runtime::Formulation::Chunked, chunkSize, gpu);
  return chunked < attention ? runtime::Formulation::Chunked
                             : runtime::Formulation::Attention;
}

int64_t sympow::preferredChunk(const LayerSizes &s,
                               const std::vector<int64_t> &candidates,
                               const GpuSpec &gpu) {
  int64_t best = 0;
  double fastest = 0;
  for (int64_t chunk : candidates) {
    double seconds =
        predictedLayerSeconds(s, runtime::Formulation::Chunked, chunk, gpu);
    if (best == 0 || seconds < fastest) {
      best = chunk;
      fastest = seconds;
    }
  }
  return best;
}

Cost sympow::minimalCost(const LayerSizes &s, runtime::Formulation f,
                         int64_t chunkSize) {
  Cost cost = f == runtime::Formulation::Chunked     ? chunkedCost(s, chunkSize)
              : f == runtime::Formulation::Recurrent ? recurrentCost(s)
                                                     : attentionCost(s);
  cost.bytes = ioBytes(s);
  if (s.hasInitialState)
    cost.bytes += 2 * stateBytes(s);
  return cost;
}
