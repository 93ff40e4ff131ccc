//===- Formulations.h - The three ways to compute a layer -------*- C++ -*-===//
//
// Internal entry points behind forward(). Each takes validated inputs (q, k,
// v already rounded) and output buffers already sized (finalState present iff
// desc.wantFinalState). They are written independently of one another so
// that agreement between them is evidence, not tautology.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_LIB_FORMULATIONS_H
#define SYMPOW_REFERENCE_LIB_FORMULATIONS_H

#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Layer.h"

namespace sympow::reference::detail {

/// `basis` may be null when there is neither an initial nor a final state.
void runAttention(const LayerDesc &desc, const LayerInputs &in,
                  const MultisetBasis *basis, LayerOutputs &out);
void runRecurrent(const LayerDesc &desc, const LayerInputs &in,
                  const MultisetBasis &basis, LayerOutputs &out);
void runChunked(const LayerDesc &desc, const LayerInputs &in,
                const MultisetBasis &basis, LayerOutputs &out);

} // namespace sympow::reference::detail

#endif // SYMPOW_REFERENCE_LIB_FORMULATIONS_H
