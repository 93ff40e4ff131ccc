//===- Forward.cpp - Dispatch to a formulation ----------------------------===//

#include "sympow/Reference/Forward.h"

#include "Formulations.h"
#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Rounding.h"
#include "sympow/Reference/Validate.h"

namespace sympow::reference {

Result<LayerOutputs> forward(const LayerDesc &desc, const LayerInputs &inputs) {
  if (Status st = validate(desc, inputs); st.isError())
    return st;
  LayerInputs in = inputs;
  roundInPlace(desc.inputType, in.q);
  roundInPlace(desc.inputType, in.k);
  roundInPlace(desc.inputType, in.v);

  const Shape &s = desc.shape;
  bool needsBasis = desc.formulation != Formulation::Attention ||
                    desc.wantFinalState || in.initialState.has_value();
  MultisetBasis basis;
  if (needsBasis) {
    Result<MultisetBasis> made = makeMultisetBasis(s.d, desc.power);
    if (made.isError())
      return made.status();
    basis = std::move(made.value());
  }

  LayerOutputs out;
  out.y = Tensor({s.B, s.T, s.Hq, s.e});
  if (desc.wantFinalState) {
    int64_t D = basis.size();
    out.finalState = State{Tensor({s.B, s.H, D, s.e}), Tensor({s.B, s.H, D}),
                           Tensor({s.B, s.H})};
  }
  switch (desc.formulation) {
  case Formulation::Attention:
    detail::runAttention(desc, in, needsBasis ? &basis : nullptr, out);
    break;
  case Formulation::Recurrent:
    detail::runRecurrent(desc, in, basis, out);
    break;
  case Formulation::Chunked:
    detail::runChunked(desc, in, basis, out);
    break;
  }
  return out;
}

} // namespace sympow::reference
