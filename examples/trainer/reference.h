// The layer's definition (docs/SPEC.md, attention form) evaluated in f64:
// what the trainer checks the library's kernels against. Deliberately
// direct: O(T^2) per head, no state, nothing shared with sympow.
#pragma once

#include "sympow_kernels.h"

#include <vector>

struct LayerInputs {
  int64_t B = 1, T = 1;
  std::vector<double> q, k, v;              // as the kernels see them (rounded)
  std::vector<double> logG, logGamma, beta; // empty when absent
};

/// y [B, T, Hq, e] of the definition.
std::vector<double> referenceLayer(const sympow_layer_desc &desc,
                                   const LayerInputs &in);
