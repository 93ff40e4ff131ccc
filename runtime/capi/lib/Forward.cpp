//===- Forward.cpp - Forward and decode calls of the C API ----------------===//
//
// A call is checked whole before anything is queued: the description, the
// kernels the library has for it, every tensor against the shapes SPEC
// gives, the workspace. Then the state is staged (copied from the initial
// state, or zeroed) where the kernels update it in place, and the
// formulation's kernels are launched (runtime::launchLayer). Nothing here
// allocates unless it reports an error.
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "Registry.h"
#include "Tensors.h"
#include "sympow/CAPI/Desc.h"

#include "sympow/Runtime/Layer.h"
#include "sympow/Support/Bytes.h"

#include <cmath>

using namespace sympow;
using namespace sympow::capi;
using runtime::DevicePtr;

namespace {

/// Bytes of S, Z and c for B sequences (saturating, Bytes.h).
struct StateBytes {
  size_t s, z, c;
  size_t total() const {
    return addBytes(addBytes(alignBytes(s), alignBytes(z)), alignBytes(c));
  }
};

StateBytes stateBytes(const runtime::LayerVariant &v, int64_t B) {
  int64_t dim = v.stateDim();
  return {bytesOf(sizeof(float), {B, v.h, dim, v.e}),
          bytesOf(sizeof(float), {B, v.h, dim}),
          bytesOf(sizeof(double), {B, v.h})};
}

/// The workspace a call needs: the kernels' scratch, then the state's when
/// the caller gives no state to update in place. An error when it cannot
/// be addressed.
Result<size_t> callWorkspaceBytes(const runtime::LayerVariant &v, int64_t B,
                                  int64_t T, bool scratchState) {
  Result<size_t> kernels = runtime::layerWorkspaceBytes(v, B, T);
  if (kernels.isError())
    return kernels.status();
  size_t need = alignBytes(kernels.value());
  if (scratchState)
    need = addBytes(need, stateBytes(v, B).total());
  if (need == kTooManyBytes)
    return runtime::unaddressableWorkspace(B, T);
  return need;
}

bool stateful(const runtime::LayerVariant &v) {
  return v.formulation != runtime::Formulation::Attention;
}

/// The registry's entry for `wanted` called with `shape`, or the failed
/// status: NOT_COMPILED when no kernels match, else INVALID_ARGUMENT.
sympow_status lookUp(const sympow_registry &registry,
                     const sympow_layer_desc &wanted, CallShape shape,
                     size_t &entry) {
  Result<size_t> found = findEntry(registry, wanted, shape);
  if (found.isError())
    return fail(found.message().rfind("no kernels", 0) == 0
                    ? SYMPOW_ERROR_NOT_COMPILED
                    : SYMPOW_ERROR_INVALID_ARGUMENT,
                found.message());
  entry = found.value();
  return SYMPOW_SUCCESS;
}

/// The parts of a forward or decode call.
struct Call {
  const sympow_tensor *q, *k, *v, *logG, *logGamma, *beta, *y;
  const sympow_state *initial = nullptr; // forward
  const sympow_state *final = nullptr;   // forward
  const sympow_state *inPlace = nullptr; // decode
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  void *stream = nullptr;
};

/// The checked call, ready to launch.
struct Plan {
  runtime::LayerVariant variant;
  runtime::KernelLibrary *library = nullptr;
  int64_t B = 0, T = 0;
};

Result<sympow_layer_desc> normalized(const sympow_layer_desc *desc) {
  if (!desc)
    return Status::error("'desc' is null");
  return normalizeDesc(*desc);
}

Status checkState(const sympow_state &state, const char *which,
                  const runtime::LayerVariant &v, int64_t B) {
  std::string s = std::string(which) + ".S", z = std::string(which) + ".Z",
              c = std::string(which) + ".c";
  int64_t dim = v.stateDim();
  if (Status st = checkTensor(
          state.S, {s.c_str(), SYMPOW_DTYPE_F32, {B, v.h, dim, v.e}, 16});
      st.isError())
    return st;
  if (Status st = checkTensor(state.Z,
                              {z.c_str(), SYMPOW_DTYPE_F32, {B, v.h, dim}, 16});
      st.isError())
    return st;
  return checkTensor(state.c, {c.c_str(), SYMPOW_DTYPE_F64, {B, v.h}, 8});
}

/// Everything a call is checked for; the failure's code says which kind.
sympow_status plan(sympow_context *context, const sympow_layer_desc &d,
                   const Call &call, Plan &out) {
  const sympow_tensor &q = *call.q;
  if (!q.data)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, "'q' is null");
  if (q.rank != 4 || q.shape[0] < 1 || q.shape[1] < 0)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "'q' must have shape [B, T, Hq, d] with B >= 1 and T >= 0 "
                "(rank " +
                    std::to_string(q.rank) + ")");
  int64_t B = q.shape[0], T = q.shape[1];
  // Which optional inputs are given is a mistake of the call, whatever the
  // library holds: checked before the kernels are looked up.
  struct Presence {
    const sympow_tensor *tensor;
    const char *name;
    bool needed;
    const char *has, *hasNot;
  } presence[] = {
      {call.logG, "log_g", d.has_log_g != 0, "desc.has_log_g is set",
       "desc.has_log_g is 0"},
      {call.logGamma, "log_gamma", d.has_log_gamma != 0,
       "desc.has_log_gamma is set", "desc.has_log_gamma is 0"},
      {call.beta, "beta", d.schedule == SYMPOW_SCHEDULE_LEARNED,
       "the schedule is learned", "the schedule is not learned"},
  };
  for (const Presence &o : presence)
    if (Status s = checkPresence(*o.tensor, o.name, o.needed, o.has, o.hasNot);
        s.isError())
      return fail(SYMPOW_ERROR_INVALID_ARGUMENT, s.message());

  CallShape shape{B, T, call.initial || call.final || call.inPlace};
  sympow_layer_desc wanted = d;
  if (call.inPlace)
    wanted.formulation = SYMPOW_FORMULATION_RECURRENT;
  size_t entry = 0;
  if (sympow_status s = lookUp(*context->registry, wanted, shape, entry))
    return s;
  const sympow_registry_entry &e = context->registry->entries[entry];
  runtime::LayerVariant v = layerVariant(e.desc);

  sympow_dtype dt = d.dtype;
  int64_t H = v.h, Hq = v.hq;
  struct Required {
    const sympow_tensor *tensor;
    TensorRule rule;
  } required[] = {
      {call.q, {"q", dt, {B, T, Hq, v.d}, 16}},
      {call.k, {"k", dt, {B, T, H, v.d}, 16}},
      {call.v, {"v", dt, {B, T, H, v.e}, 16}},
      {call.y, {"y", dt, {B, T, Hq, v.e}, 16}},
  };
  for (const Required &r : required)
    if (Status s = checkTensor(*r.tensor, r.rule); s.isError())
      return fail(SYMPOW_ERROR_INVALID_ARGUMENT, s.message());
  TensorRule optional[] = {
      {"log_g", SYMPOW_DTYPE_F32, {B, T, H}, 4},
      {"log_gamma", SYMPOW_DTYPE_F32, {H}, 4},
      {"beta", SYMPOW_DTYPE_F32, {B, T, H}, 4},
  };
  for (size_t i = 0; i < 3; ++i)
    if (presence[i].needed)
      if (Status s = checkTensor(*presence[i].tensor, optional[i]); s.isError())
        return fail(SYMPOW_ERROR_INVALID_ARGUMENT, s.message());
  struct StateArg {
    const sympow_state *state;
    const char *name;
  } states[] = {{call.initial, "initial_state"},
                {call.final, "final_state"},
                {call.inPlace, "state"}};
  for (const StateArg &s : states)
    if (s.state)
      if (Status st = checkState(*s.state, s.name, v, B); st.isError())
        return fail(SYMPOW_ERROR_INVALID_ARGUMENT, st.message());

  Result<size_t> needed =
      callWorkspaceBytes(v, B, T, stateful(v) && !call.final && !call.inPlace);
  if (needed.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, needed.message());
  size_t need = needed.value();
  if (need && (!call.workspace || call.workspaceBytes < need))
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "the workspace has " + std::to_string(call.workspaceBytes) +
                    " bytes" + (call.workspace ? "" : " (null)") +
                    "; this call needs " + std::to_string(need) +
                    (call.inPlace ? " (sympow_decode_workspace_size)"
                                  : " (sympow_forward_workspace_size)"));
  if (call.workspace &&
      reinterpret_cast<uintptr_t>(call.workspace) % kBufferAlign)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "the workspace is not aligned to 256 bytes");
  out.variant = v;
  out.library = context->libraries[entry].get();
  out.B = B;
  out.T = T;
  return SYMPOW_SUCCESS;
}

DevicePtr ptr(const sympow_tensor &t) {
  return reinterpret_cast<DevicePtr>(t.data);
}

sympow_status run(sympow_context *context, const sympow_layer_desc *desc,
                  const Call &call) {
  if (!context)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, "'context' is null");
  Result<sympow_layer_desc> d = normalized(desc);
  if (d.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, d.message());
  Plan p;
  if (sympow_status s = plan(context, d.value(), call, p); s != SYMPOW_SUCCESS)
    return s;

  runtime::Backend &backend = *context->backend;
  const runtime::LayerVariant &v = p.variant;
  runtime::LayerBuffers buffers;
  buffers.q = ptr(*call.q);
  buffers.k = ptr(*call.k);
  buffers.v = ptr(*call.v);
  buffers.logG = ptr(*call.logG);
  buffers.logGamma = ptr(*call.logGamma);
  buffers.beta = ptr(*call.beta);
  buffers.y = ptr(*call.y);
  DevicePtr workspace = reinterpret_cast<DevicePtr>(call.workspace);
  // plan() checked the sizes.
  size_t kernelBytes =
      alignBytes(runtime::layerWorkspaceBytes(v, p.B, p.T).value());

  auto backendError = [](const Status &s) {
    return fail(SYMPOW_ERROR_BACKEND, s.message());
  };
  if (stateful(v)) {
    // Where the kernels update the state: the caller's, or scratch.
    const sympow_state *target = call.inPlace ? call.inPlace : call.final;
    StateBytes bytes = stateBytes(v, p.B);
    DevicePtr s, z, c;
    if (target) {
      s = ptr(target->S), z = ptr(target->Z), c = ptr(target->c);
    } else {
      s = workspace + kernelBytes;
      z = s + alignBytes(bytes.s);
      c = z + alignBytes(bytes.z);
    }
    if (!call.inPlace) {
      struct Part {
        DevicePtr to;
        const sympow_tensor *from;
        size_t bytes;
      } parts[] = {{s, call.initial ? &call.initial->S : nullptr, bytes.s},
                   {z, call.initial ? &call.initial->Z : nullptr, bytes.z},
                   {c, call.initial ? &call.initial->c : nullptr, bytes.c}};
      for (const Part &part : parts) {
        Status st = !part.from
                        ? backend.fillZero(part.to, part.bytes, call.stream)
                    : ptr(*part.from) == part.to
                        ? Status::success()
                        : backend.copyOnDevice(part.to, ptr(*part.from),
                                               part.bytes, call.stream);
        if (st.isError())
          return backendError(st);
      }
    }
    buffers.s = s, buffers.z = z, buffers.c = c;
  }
  Status s = runtime::launchLayer(backend, *p.library, v, buffers, p.B, p.T,
                                  workspace, kernelBytes, call.stream);
  if (s.isError())
    return backendError(s);
  return succeed();
}

} // namespace

extern "C" {

sympow_tensor sympow_tensor_contiguous(void *data, sympow_dtype dtype,
                                       int32_t rank, const int64_t *shape) {
  sympow_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = rank < 0 ? 0 : rank > SYMPOW_MAX_RANK ? SYMPOW_MAX_RANK : rank;
  int64_t stride = 1;
  for (int32_t i = t.rank; i-- > 0;) {
    t.shape[i] = shape ? shape[i] : 0;
    t.strides[i] = stride;
    stride *= t.shape[i];
  }
  return t;
}

int sympow_is_compiled(const sympow_layer_desc *desc) {
  const sympow_registry *registry = activeRegistry();
  if (!registry) {
    fail(SYMPOW_ERROR_NOT_COMPILED, "this program has no kernel registry");
    return 0;
  }
  Result<sympow_layer_desc> d = normalized(desc);
  if (d.isError()) {
    fail(SYMPOW_ERROR_INVALID_ARGUMENT, d.message());
    return 0;
  }
  Result<size_t> entry = findEntry(*registry, d.value(), CallShape{});
  if (entry.isError()) {
    fail(SYMPOW_ERROR_NOT_COMPILED, entry.message());
    return 0;
  }
  succeed();
  return 1;
}

namespace {

/// What both workspace-size queries check first: their pointers, B and T,
/// and the layer description (normalized into `d`).
sympow_status checkWorkspaceQuery(const char *function,
                                  const sympow_context *context,
                                  const sympow_layer_desc *desc, int64_t B,
                                  int64_t T, const size_t *bytes,
                                  sympow_layer_desc &d) {
  if (!context || !bytes)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                std::string(function) +
                    ": 'context' and 'bytes' must not be null");
  if (Status s = runtime::checkCallShape(B, T); s.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, s.message());
  Result<sympow_layer_desc> normalizedDesc = normalized(desc);
  if (normalizedDesc.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, normalizedDesc.message());
  d = normalizedDesc.value();
  return SYMPOW_SUCCESS;
}

} // namespace

sympow_status sympow_forward_workspace_size(sympow_context *context,
                                            const sympow_layer_desc *desc,
                                            int64_t B, int64_t T,
                                            uint32_t stateFlags,
                                            size_t *bytes) {
  sympow_layer_desc d;
  if (sympow_status s = checkWorkspaceQuery("sympow_forward_workspace_size",
                                            context, desc, B, T, bytes, d))
    return s;
  if (stateFlags &
      ~uint32_t(SYMPOW_WITH_INITIAL_STATE | SYMPOW_WITH_FINAL_STATE))
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "state_flags " + std::to_string(stateFlags) +
                    " has unknown bits: use SYMPOW_WITH_INITIAL_STATE and "
                    "SYMPOW_WITH_FINAL_STATE");
  size_t entry = 0;
  if (sympow_status s = lookUp(*context->registry, d,
                               CallShape{B, T, stateFlags != 0}, entry))
    return s;
  runtime::LayerVariant v =
      layerVariant(context->registry->entries[entry].desc);
  Result<size_t> need = callWorkspaceBytes(
      v, B, T, stateful(v) && !(stateFlags & SYMPOW_WITH_FINAL_STATE));
  if (need.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, need.message());
  *bytes = need.value();
  return succeed();
}

sympow_status sympow_decode_workspace_size(sympow_context *context,
                                           const sympow_layer_desc *desc,
                                           int64_t B, int64_t T,
                                           size_t *bytes) {
  sympow_layer_desc wanted;
  if (sympow_status s = checkWorkspaceQuery("sympow_decode_workspace_size",
                                            context, desc, B, T, bytes, wanted))
    return s;
  wanted.formulation = SYMPOW_FORMULATION_RECURRENT;
  size_t entry = 0;
  if (sympow_status s =
          lookUp(*context->registry, wanted, CallShape{B, T, true}, entry))
    return s;
  runtime::LayerVariant v =
      layerVariant(context->registry->entries[entry].desc);
  Result<size_t> need = callWorkspaceBytes(v, B, T, false);
  if (need.isError())
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, need.message());
  *bytes = need.value();
  return succeed();
}

sympow_status sympow_forward(sympow_context *context,
                             const sympow_layer_desc *desc,
                             const sympow_forward_args *args) {
  if (!args)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, "'args' is null");
  Call call{&args->q,         &args->k,    &args->v, &args->log_g,
            &args->log_gamma, &args->beta, &args->y};
  call.initial = args->initial_state;
  call.final = args->final_state;
  call.workspace = args->workspace;
  call.workspaceBytes = args->workspace_bytes;
  call.stream = args->stream;
  return run(context, desc, call);
}

sympow_status sympow_decode(sympow_context *context,
                            const sympow_layer_desc *desc,
                            const sympow_decode_args *args) {
  if (!args)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT, "'args' is null");
  if (!args->state)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "'state' is null: decoding reads and updates a state");
  Call call{&args->q,         &args->k,    &args->v, &args->log_g,
            &args->log_gamma, &args->beta, &args->y};
  call.inPlace = args->state;
  call.workspace = args->workspace;
  call.workspaceBytes = args->workspace_bytes;
  call.stream = args->stream;
  return run(context, desc, call);
}

} // extern "C"
