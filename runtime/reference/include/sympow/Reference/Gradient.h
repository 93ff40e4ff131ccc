//===- Gradient.h - Derivatives of the definition ---------------*- C++ -*-===//
//
// Reverse-mode derivatives of the attention definition (SPEC: Gradients),
// computed by running the same templated f64 code on a tape.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_GRADIENT_H
#define SYMPOW_REFERENCE_GRADIENT_H

#include "sympow/Reference/Layer.h"
#include "sympow/Reference/Status.h"

#include <optional>

namespace sympow::reference {

/// Upstream gradients: dy [B,T,Hq,e] and, optionally, gradients of the
/// final state (needs a schedule with a state).
struct OutputGradients {
  Tensor dy;
  std::optional<State> dFinalState;
};

/// d(loss)/d(input) for loss = <dy, y> + <dS, S_T> + <dZ, Z_T> + <dc, c_T>.
/// Gradients for optional inputs are present iff the input was given.
/// q, k, v are rounded to desc.inputType first; their gradients are with
/// respect to the rounded values (use InputType::F64 for exact derivatives).
struct LayerGradients {
  Tensor dq, dk, dv;
  std::optional<Tensor> dlogG, dlogGamma, dbeta;
  /// dS0, dZ0 and dc0.
  std::optional<State> dInitialState;
};

/// Validates like forward() (desc.formulation is ignored: the derivative is
/// that of the definition) plus the gradient shapes.
Result<LayerGradients> backward(const LayerDesc &desc,
                                const LayerInputs &inputs,
                                const OutputGradients &grads);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_GRADIENT_H
