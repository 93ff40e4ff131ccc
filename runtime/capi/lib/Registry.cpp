//===- Registry.cpp - The kernels a library embeds ------------------------===//

#include "Registry.h"

#include "sympow/CAPI/Desc.h"
#include "sympow/Runtime/KernelEstimates.h"

using namespace sympow;
using namespace sympow::capi;

const sympow_registry *sympow::capi::activeRegistry() {
  return &sympow_kernels_registry;
}

namespace {

/// The calibrated model's time for entry `e` on a call of `call`'s shape,
/// on an H100 (docs/Performance.md).
double estimatedTime(const sympow_layer_desc &e, const CallShape &call) {
  runtime::LayerVariant variant = layerVariant(e);
  return predictedLayerSeconds(layerSizes(variant, call.B, call.T, call.state),
                               variant.formulation, e.chunk_size,
                               GpuSpec::h100());
}

Status notCompiled(const sympow_registry &registry,
                   const sympow_layer_desc &desc, const char *why) {
  std::string message = std::string("no kernels for ") + why + " \"" +
                        variantString(desc) + "\" in this library";
  constexpr uint32_t kListed = 3;
  for (uint32_t i = 0; i < registry.entry_count && i < kListed; ++i)
    message +=
        std::string(i ? "; " : " (it holds: ") + registry.entries[i].variant;
  if (registry.entry_count > kListed)
    message += "; ... " + std::to_string(registry.entry_count) +
               " in all, see sympow_variant_name";
  message += registry.entry_count ? ")" : " (it holds none)";
  message +=
      "; build them with sympow-aot --variant \"" + variantString(desc) + "\"";
  return Status::error(message);
}

} // namespace

Result<size_t> sympow::capi::findEntry(const sympow_registry &registry,
                                       const sympow_layer_desc &desc,
                                       const CallShape &call) {
  if (call.state && relativeSchedule(desc))
    return Status::error("the warped and blend schedules have no state: "
                         "initial_state and final_state must be absent");
  if (call.state && desc.formulation == SYMPOW_FORMULATION_ATTENTION)
    return Status::error("the attention formulation takes no initial or "
                         "final state: use chunked, recurrent or auto");
  long best = -1;
  double bestWork = 0;
  bool variantFound = false;
  for (uint32_t i = 0; i < registry.entry_count; ++i) {
    const sympow_layer_desc &e = registry.entries[i].desc;
    if (!sameVariant(e, desc))
      continue;
    variantFound = true;
    if (desc.formulation != SYMPOW_FORMULATION_AUTO &&
        e.formulation != desc.formulation)
      continue;
    if (desc.chunk_size && e.formulation == SYMPOW_FORMULATION_CHUNKED &&
        e.chunk_size != desc.chunk_size)
      continue;
    if (call.state && e.formulation == SYMPOW_FORMULATION_ATTENTION)
      continue;
    double work = estimatedTime(e, call);
    if (best < 0 || work < bestWork) {
      best = i;
      bestWork = work;
    }
  }
  if (best >= 0)
    return size_t(best);
  return notCompiled(registry, desc,
                     variantFound ? "this formulation of the variant"
                                  : "the variant");
}
