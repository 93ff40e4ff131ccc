//===- CountsScaling.cpp - A launch's counts at a longer sequence ---------===//
//
// Lagrange interpolation through three points, in exact integer arithmetic
// (128-bit: counts at 64K tokens times T^2 stay far below 2^127).
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/CountsScaling.h"

using namespace sympow;

namespace {
using Wide = __int128;

struct Quadratic {
  std::array<Wide, 3> x;
  Wide at;
  const char *field = nullptr;
  bool failed = false;

  /// The value at `at` of the quadratic through (x_i, y_i).
  uint64_t operator()(const char *name, const std::array<uint64_t, 3> &y) {
    Wide sum = 0, denominator = 1;
    // Common denominator: the product of the three (x_i - x_j) pairs.
    Wide d01 = x[0] - x[1], d02 = x[0] - x[2], d12 = x[1] - x[2];
    denominator = d01 * d02 * d12;
    Wide l0 = (at - x[1]) * (at - x[2]) * d12;
    Wide l1 = -(at - x[0]) * (at - x[2]) * d02;
    Wide l2 = (at - x[0]) * (at - x[1]) * d01;
    sum = l0 * Wide(y[0]) + l1 * Wide(y[1]) + l2 * Wide(y[2]);
    if (sum % denominator != 0 || sum / denominator < 0) {
      if (!failed)
        field = name;
      failed = true;
      return 0;
    }
    return uint64_t(sum / denominator);
  }
};
} // namespace

bool sympow::extrapolateCounts(const CountSamples &s, int64_t tokens,
                               LaunchCounts &out, std::string &error) {
  Quadratic q{{Wide(s.tokens[0]), Wide(s.tokens[1]), Wide(s.tokens[2])},
              Wide(tokens)};
  out = s.counts[2];
  auto values = [&](auto member) {
    return std::array<uint64_t, 3>{member(s.counts[0]), member(s.counts[1]),
                                   member(s.counts[2])};
  };
  for (int axis = 0; axis < 3; ++axis)
    out.grid[axis] = uint32_t(q("grid", values([&](const LaunchCounts &c) {
                                  return uint64_t(c.grid[axis]);
                                })));
  out.globalLoadDistinctBytes = q(
      "distinct load bytes",
      values([](const LaunchCounts &c) { return c.globalLoadDistinctBytes; }));
  out.globalStoreDistinctBytes = q(
      "distinct store bytes",
      values([](const LaunchCounts &c) { return c.globalStoreDistinctBytes; }));
  // Every field of the total and of the heaviest block.
  for (bool heaviest : {false, true})
    for (int i = 0; i < kNumCounts; ++i) {
      auto field = [&](const LaunchCounts &c) {
        return countAt(heaviest ? c.heaviest : c.total, i);
      };
      countAt(heaviest ? out.heaviest : out.total, i) =
          q(countName(i), values(field));
    }
  if (q.failed) {
    error = std::string("'") + q.field +
            "' does not follow a quadratic in T through the samples";
    return false;
  }
  return true;
}
