//===- LayerRules.h - The parameter rules of every entry point --*- C++ -*-===//
//
// One set of rules for a layer's scalar parameters, used by every entry
// point: the C API (runtime/capi), the reference's validation (and so
// sympow-run on every backend), sympow-aot's variant parser and the kernel
// generators, and the dialect's verifier (p). Each returns the reason a
// value is refused, to follow "<name> = <value> ", or nothing.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_LAYERRULES_H
#define SYMPOW_SUPPORT_LAYERRULES_H

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace sympow::rules {

/// The largest power p any part of the project compiles or evaluates. Far
/// above what is useful ((q.k)^p of unit-scale vectors), and it bounds every
/// cost that grows with p (the embedding's C(d+p-1, p), loops over p).
constexpr int64_t kMaxPower = 32;

using Problem = std::optional<std::string>;

/// p: even, 2 <= p <= kMaxPower.
inline Problem checkPower(int64_t p) {
  if (p >= 2 && p % 2 == 0 && p <= kMaxPower)
    return std::nullopt;
  return "is not supported: p must be an even integer >= 2 and <= " +
         std::to_string(kMaxPower) +
         (p % 2 ? std::string(" (odd powers do not give nonnegative scores)")
                : std::string());
}

/// The scale multiplying q, when given: finite and > 0. (Where an API reads
/// 0 as "the default 1/sqrt(d)", it resolves that before this rule.)
inline Problem checkScale(double s) {
  if (std::isfinite(s) && s > 0)
    return std::nullopt;
  return std::string("must be a finite number > 0");
}

/// The rotary base: finite and > 1 (base 1 would give every pair one rate).
inline Problem checkRopeBase(double b) {
  if (std::isfinite(b) && b > 1)
    return std::nullopt;
  return std::string("must be a finite number > 1");
}

/// The rotary rate scale: finite and > 0.
inline Problem checkRopeScale(double s) {
  if (std::isfinite(s) && s > 0)
    return std::nullopt;
  return std::string("must be a finite number > 0");
}

/// The rotated dims r: even, 2 <= r <= d.
inline Problem checkRopeDims(int64_t r, int64_t d) {
  if (r >= 2 && r % 2 == 0 && r <= d)
    return std::nullopt;
  return "must be even and between 2 and d = " + std::to_string(d);
}

/// The warped/blend schedules' typical length L: finite and > 0.
inline Problem checkWarpLength(double L) {
  if (std::isfinite(L) && L > 0)
    return std::nullopt;
  return std::string("must be a finite number > 0");
}

/// A chunk size C >= 1.
inline Problem checkChunk(int64_t c) {
  if (c >= 1)
    return std::nullopt;
  return std::string("must be >= 1");
}

} // namespace sympow::rules

#endif // SYMPOW_SUPPORT_LAYERRULES_H
