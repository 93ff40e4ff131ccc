//===- Registry.cpp - The kernels a library embeds ------------------------===//

#include "Registry.h"

#include "sympow/CAPI/Desc.h"

using namespace sympow;
using namespace sympow::capi;

const sympow_registry *sympow::capi::activeRegistry() {
  return &sympow_kernels_registry;
}

namespace {

/// Multiply-adds of a formulation per sequence and query head, enough to
/// choose between compiled formulations (docs/CostModel.md has the
/// compiler's fuller model).
double estimatedWork(const sympow_layer_desc &d, int64_t T) {
  double t = double(T), qk = double(d.head_dim + d.value_dim);
  switch (d.formulation) {
  case SYMPOW_FORMULATION_ATTENTION:
    return t * (t + 1) / 2 * qk;
  case SYMPOW_FORMULATION_CHUNKED: {
    double dim = double(layerVariant(d).stateDim());
    double c = double(d.chunk_size);
    return t * ((c + 1) / 2 * qk + 2 * dim * d.value_dim);
  }
  case SYMPOW_FORMULATION_RECURRENT: {
    double dim = double(layerVariant(d).stateDim());
    // One launch per token: charged as if unparallelised over T.
    return t * t * 2 * dim * d.value_dim;
  }
  default:
    return 0;
  }
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
    double work = estimatedWork(e, call.T);
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
