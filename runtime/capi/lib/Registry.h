//===- Registry.h - The kernels a library embeds ----------------*- C++ -*-===//
//
// The generated table of a kernel library (sympow_kernels_registry.h) and
// the choice of its entry for a call: the exact variant, then the
// formulation asked for, or the best compiled one for `auto`.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_CAPI_REGISTRY_H
#define SYMPOW_CAPI_REGISTRY_H

#include "sympow_kernels_registry.h"

#include "sympow/Support/Status.h"

namespace sympow::capi {

/// The library's registry, or the one a test installed; null if neither.
const sympow_registry *activeRegistry();
/// For tests: use `registry` instead of the library's (null restores it).
/// Contexts keep the registry they were created with.
void setRegistryForTesting(const sympow_registry *registry);

/// What a call needs from the entry it runs.
struct CallShape {
  int64_t T = 1;
  bool state = false; // an initial or final state is involved
};

/// The entry of `registry` that runs `desc` (normal form) for `call`;
/// an error naming the variant and how to build it when there is none.
Result<size_t> findEntry(const sympow_registry &registry,
                         const sympow_layer_desc &desc, const CallShape &call);

} // namespace sympow::capi

#endif // SYMPOW_CAPI_REGISTRY_H
