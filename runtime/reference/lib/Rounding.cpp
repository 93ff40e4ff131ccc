//===- Rounding.cpp - Rounding inputs to kernel dtypes --------------------===//

#include "sympow/Reference/Rounding.h"

#include <cmath>
#include <limits>

namespace sympow::reference {

namespace {
struct Format {
  int precision; ///< significand bits, including the implicit one
  int emin;      ///< exponent of the smallest normal
  int emax;      ///< exponent of the largest finite
};
} // namespace

static double roundToFormat(double x, Format f) {
  if (x == 0.0 || !std::isfinite(x))
    return x;
  int e = std::ilogb(x);
  if (e < f.emin)
    e = f.emin; // subnormal: fixed quantum
  int quantum = e - (f.precision - 1);
  // nearbyint uses the current rounding mode, which is to-nearest-even.
  double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
  if (std::fabs(r) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

double roundTo(InputType type, double x) {
  switch (type) {
  case InputType::F32:
    return roundToFormat(x, {24, -126, 127});
  case InputType::BF16:
    return roundToFormat(x, {8, -126, 127});
  case InputType::F16:
    return roundToFormat(x, {11, -14, 15});
  case InputType::F64:
    return x;
  }
  return x;
}

void roundInPlace(InputType type, Tensor &t) {
  for (double &x : t.data)
    x = roundTo(type, x);
}

} // namespace sympow::reference
