//===- Rotary.cpp - Rotary position rotations -----------------------------===//

#include "sympow/Reference/Rotary.h"

namespace sympow::reference {

static int64_t rotated(const RotaryConfig &cfg, int64_t d) {
  return cfg.dims ? cfg.dims : d;
}

std::vector<double> rotaryRates(const RotaryConfig &cfg, int64_t d) {
  int64_t r = rotated(cfg, d);
  std::vector<double> rates;
  for (int64_t j = 0; j < r / 2; ++j)
    rates.push_back(cfg.rateScale *
                    std::pow(cfg.base, -2.0 * static_cast<double>(j) /
                                           static_cast<double>(r)));
  return rates;
}

std::pair<int64_t, int64_t> rotaryPair(const RotaryConfig &cfg, int64_t d,
                                       int64_t j) {
  if (cfg.layout == RotaryLayout::Interleaved)
    return {2 * j, 2 * j + 1};
  return {j, j + rotated(cfg, d) / 2};
}

double warpCount(Schedule schedule, double warpLength, int64_t age) {
  double a = static_cast<double>(age);
  double L = warpLength;
  if (schedule == Schedule::Warped)
    return L * a / (a + L);
  if (schedule == Schedule::Blend)
    return a < L ? a : L + L * (a - L) / a;
  return a;
}

std::vector<double> rotate(const RotaryConfig &cfg,
                           const std::vector<double> &x, double count) {
  int64_t d = static_cast<int64_t>(x.size());
  std::vector<double> out(x.size());
  rotate<double>(cfg, d, rotaryRates(cfg, d), count, x.data(), out.data());
  return out;
}

} // namespace sympow::reference
