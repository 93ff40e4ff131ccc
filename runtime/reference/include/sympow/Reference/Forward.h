//===- Forward.h - Running the f64 reference layer --------------*- C++ -*-===//
//
// The oracle every kernel is checked against: SPEC.md made executable, f64
// inside, deliberately simple.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_FORWARD_H
#define SYMPOW_REFERENCE_FORWARD_H

#include "sympow/Reference/Layer.h"
#include "sympow/Reference/Status.h"

namespace sympow::reference {

/// Validates, rounds q, k, v to desc.inputType, then computes y (and the
/// final state if desc.wantFinalState) with desc.formulation. Attention,
/// recurrent and chunked agree to rounding. Final states are returned by all
/// three; for schedule none the count c is carried over unchanged (c0 or 0).
Result<LayerOutputs> forward(const LayerDesc &desc, const LayerInputs &inputs);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_FORWARD_H
