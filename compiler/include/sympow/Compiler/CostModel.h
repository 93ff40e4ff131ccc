//===- CostModel.h - The cost model, in the dialect's terms -----*- C++ -*-===//
//
// The model itself is the runtime's (sympow/Runtime/CostModel.h, shared with
// the C API); this gives its choice as the dialect's formulation kind.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_COSTMODEL_H
#define SYMPOW_COMPILER_COSTMODEL_H

#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/GpuModel.h"

namespace sympow {

enum class FormulationKind : uint32_t;

/// preferredFormulation as the dialect's kind.
FormulationKind chooseFormulation(const LayerSizes &sizes, int64_t chunkSize,
                                  const GpuSpec &gpu = GpuSpec::h100());

} // namespace sympow

#endif // SYMPOW_COMPILER_COSTMODEL_H
