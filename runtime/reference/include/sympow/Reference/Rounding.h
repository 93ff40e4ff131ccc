//===- Rounding.h - Rounding inputs to kernel dtypes ------------*- C++ -*-===//
//
// q, k and v are rounded to the kernel's input type on entry so that the
// oracle sees exactly what a kernel sees (SPEC: Accuracy).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_ROUNDING_H
#define SYMPOW_REFERENCE_ROUNDING_H

#include "sympow/Reference/Layer.h"

namespace sympow::reference {

/// Round x to the nearest value of `type`, ties to even, with subnormals and
/// overflow to +-inf as IEEE 754 does. Rounds the double directly (no double
/// rounding through f32). F64 returns x unchanged.
double roundTo(InputType type, double x);

void roundInPlace(InputType type, Tensor &t);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_ROUNDING_H
