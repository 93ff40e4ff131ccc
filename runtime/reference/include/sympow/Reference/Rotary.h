//===- Rotary.h - Rotary position rotations R(a) ----------------*- C++ -*-===//
//
// theta_j = rate_scale * base^(-2j/r), j = 0..r/2-1. Pair j is (2j, 2j+1)
// (interleaved) or (j, j + r/2) (half); R(a) rotates pair j by a * theta_j.
// Dims >= r are left alone.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_ROTARY_H
#define SYMPOW_REFERENCE_ROTARY_H

#include "sympow/Reference/Layer.h"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace sympow::reference {

/// The r/2 rates theta_j (r = cfg.dims, or d when 0).
std::vector<double> rotaryRates(const RotaryConfig &cfg, int64_t d);

/// The dims (first, second) that pair j rotates.
std::pair<int64_t, int64_t> rotaryPair(const RotaryConfig &cfg, int64_t d,
                                       int64_t j);

/// Relative angle count of the warped / blend schedules for age a = i - j.
double warpCount(Schedule schedule, double warpLength, int64_t age);

/// out = R(count) x for vectors of length d. Templated so that the autodiff
/// scalar can flow through; S needs +, -, * and cos/sin found by ADL.
template <typename S>
void rotate(const RotaryConfig &cfg, int64_t d,
            const std::vector<double> &rates, const S &count, const S *x,
            S *out) {
  using std::cos;
  using std::sin;
  for (int64_t i = 0; i < d; ++i)
    out[i] = x[i];
  for (int64_t j = 0; j < static_cast<int64_t>(rates.size()); ++j) {
    auto [a, b] = rotaryPair(cfg, d, j);
    S angle = count * rates[j];
    S cs = cos(angle), sn = sin(angle);
    out[a] = x[a] * cs - x[b] * sn;
    out[b] = x[a] * sn + x[b] * cs;
  }
}

/// Convenience f64 form.
std::vector<double> rotate(const RotaryConfig &cfg,
                           const std::vector<double> &x, double count);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_ROTARY_H
