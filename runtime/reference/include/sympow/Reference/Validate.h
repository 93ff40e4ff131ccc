//===- Validate.h - Checking a layer call before running it -----*- C++ -*-===//
//
// Every rejected input gets a message that names the problem and says what
// is allowed. forward() and backward() validate first, so they never compute
// on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_VALIDATE_H
#define SYMPOW_REFERENCE_VALIDATE_H

#include "sympow/Reference/Layer.h"
#include "sympow/Reference/Status.h"

namespace sympow::reference {

/// Largest B*H*D*e state the reference will allocate.
constexpr int64_t kMaxStateElements = int64_t(1) << 27;

/// Reads B, T, Hq, H, d, e off q [B,T,Hq,d], k [B,T,H,d] and v [B,T,H,e],
/// checking that the three agree.
Result<Shape> inferShape(const LayerInputs &inputs);

/// Checks the description alone (power, shape, scale, rotary, schedule,
/// formulation, chunk size, warp length and their combinations).
Status validateDesc(const LayerDesc &desc);

/// Checks the description and that the inputs match it: tensor presence and
/// shapes, and values (finite after rounding to the input type; log gates
/// <= 0; beta in [0, 2]).
Status validate(const LayerDesc &desc, const LayerInputs &inputs);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_VALIDATE_H
