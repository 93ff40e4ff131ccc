//===- Attention.cpp - The attention formulation in f64 -------------------===//

#include "AttentionCore.h"
#include "Formulations.h"

namespace sympow::reference::detail {

void runAttention(const LayerDesc &desc, const LayerInputs &in,
                  const MultisetBasis *basis, LayerOutputs &out) {
  CoreInputs<double> ci;
  ci.q = in.q.data.data();
  ci.k = in.k.data.data();
  ci.v = in.v.data.data();
  ci.logG = in.logG ? in.logG->data.data() : nullptr;
  ci.logGamma = in.logGamma ? in.logGamma->data.data() : nullptr;
  ci.beta = in.beta ? in.beta->data.data() : nullptr;
  if (in.initialState) {
    ci.S0 = in.initialState->S.data.data();
    ci.Z0 = in.initialState->Z.data.data();
    ci.c0 = in.initialState->c.data.data();
  }
  CoreOutputs<double> co;
  co.y = out.y.data.data();
  if (out.finalState) {
    co.finalS = out.finalState->S.data.data();
    co.finalZ = out.finalState->Z.data.data();
    co.finalC = out.finalState->c.data.data();
  }
  attentionCore<double>(desc, basis, ci, co);
}

} // namespace sympow::reference::detail
