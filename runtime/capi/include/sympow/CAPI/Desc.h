//===- Desc.h - Layer descriptions of the C API -----------------*- C++ -*-===//
//
// A sympow_layer_desc is checked and brought to one normal form (defaults
// resolved, fields the variant ignores cleared) before it is compared with
// the descriptions a library was compiled for.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_CAPI_DESC_H
#define SYMPOW_CAPI_DESC_H

#include "sympow_kernels.h"

#include "sympow/Runtime/Layer.h"

#include <string>

namespace sympow::capi {

/// Checks `desc` against SPEC and returns its normal form; the error names
/// the field and what is allowed.
Result<sympow_layer_desc> normalizeDesc(const sympow_layer_desc &desc);

/// Whether two normal forms describe the same kernels, formulation and
/// chunk size aside.
bool sameVariant(const sympow_layer_desc &a, const sympow_layer_desc &b);

/// The runtime's description of a normal form with an exact formulation.
runtime::LayerVariant layerVariant(const sympow_layer_desc &desc);

/// `desc` as a sympow-aot --variant string (formulation and chunk included
/// unless auto / 0).
std::string variantString(const sympow_layer_desc &desc);

bool rotates(const sympow_layer_desc &desc);
bool relativeSchedule(const sympow_layer_desc &desc);

} // namespace sympow::capi

#endif // SYMPOW_CAPI_DESC_H
