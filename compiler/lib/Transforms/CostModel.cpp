//===- CostModel.cpp - The cost model, in the dialect's terms -------------===//

#include "sympow/Compiler/CostModel.h"

#include "sympow/Dialect/SympowAttrs.h"

using namespace sympow;

FormulationKind sympow::chooseFormulation(const LayerSizes &sizes,
                                          int64_t chunkSize,
                                          const GpuSpec &gpu) {
  switch (preferredFormulation(sizes, chunkSize, gpu)) {
  case runtime::Formulation::Recurrent:
    return FormulationKind::Recurrent;
  case runtime::Formulation::Chunked:
    return FormulationKind::Chunked;
  case runtime::Formulation::Attention:
    break;
  }
  return FormulationKind::Attention;
}
