//===- CApiFuzzer.cpp - The C API's argument checks, fuzzed ---------------===//
//
// libFuzzer target `sympow-fuzz-capi`: layer descriptions and tensor
// descriptions built from the fuzzer's bytes, through sympow_is_compiled,
// sympow_forward_workspace_size, sympow_forward and sympow_decode, against
// a small registry defined here (the variants' descriptions, no kernel
// images). Every bad argument must come back as SYMPOW_ERROR_* with a
// message; a call that passes every check reaches the kernel lookup and
// fails there ("no kernel image"), so no kernel runs and no tensor's data
// is read. What the checks may touch (states, the workspace) is real
// memory whenever its description fits in a few MB. docs/Reliability.md.
//
//===----------------------------------------------------------------------===//

#include "sympow_kernels.h"
#include "sympow_kernels_registry.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

sympow_layer_desc entryDesc(int64_t p, int64_t d, int64_t e, int64_t hq,
                            int64_t h, sympow_dtype dtype, int gate,
                            sympow_schedule schedule,
                            sympow_formulation formulation, int64_t chunk) {
  sympow_layer_desc x;
  sympow_layer_desc_init(&x);
  x.power = p, x.head_dim = d, x.value_dim = e;
  x.query_heads = hq, x.kv_heads = h, x.dtype = dtype;
  x.has_log_g = gate & 1, x.has_log_gamma = (gate >> 1) & 1;
  x.schedule = schedule;
  if (schedule == SYMPOW_SCHEDULE_NONE) {
    x.rope_base = x.rope_scale = 0;
  } else {
    x.rope_dims = d;
  }
  if (schedule == SYMPOW_SCHEDULE_WARPED || schedule == SYMPOW_SCHEDULE_BLEND)
    x.warp_length = 6;
  x.scale = 1.0 / std::sqrt(double(d));
  x.formulation = formulation;
  x.chunk_size = chunk;
  return x;
}

const sympow_registry_kernel kKernel = {"k", {32, 1, 1}, 16, 1, 0, 0};

std::vector<sympow_registry_entry> &entries() {
  static auto *list = new std::vector<sympow_registry_entry>{
      {"a", entryDesc(2, 16, 16, 2, 1, SYMPOW_DTYPE_BF16, 0,
                      SYMPOW_SCHEDULE_NONE, SYMPOW_FORMULATION_ATTENTION, 0),
       nullptr, 0, &kKernel, 1},
      {"b", entryDesc(2, 16, 32, 4, 2, SYMPOW_DTYPE_F16, 1,
                      SYMPOW_SCHEDULE_LEARNED, SYMPOW_FORMULATION_CHUNKED, 16),
       nullptr, 0, &kKernel, 1},
      {"c", entryDesc(2, 16, 32, 4, 2, SYMPOW_DTYPE_F16, 1,
                      SYMPOW_SCHEDULE_LEARNED, SYMPOW_FORMULATION_RECURRENT,
                      0),
       nullptr, 0, &kKernel, 1},
      {"d", entryDesc(4, 8, 16, 1, 1, SYMPOW_DTYPE_F32, 3,
                      SYMPOW_SCHEDULE_UNIFORM, SYMPOW_FORMULATION_RECURRENT, 0),
       nullptr, 0, &kKernel, 1},
      {"e", entryDesc(2, 32, 16, 2, 2, SYMPOW_DTYPE_BF16, 2,
                      SYMPOW_SCHEDULE_WARPED, SYMPOW_FORMULATION_ATTENTION, 0),
       nullptr, 0, &kKernel, 1},
  };
  return *list;
}

} // namespace

extern "C" const sympow_registry sympow_kernels_registry = {
    SYMPOW_REGISTRY_VERSION, "sympow-fuzz-capi", entries().data(),
    uint32_t(entries().size())};

namespace {

constexpr size_t kMaxBacked = 4 << 20; // bytes of real memory per tensor
alignas(256) unsigned char kUnbacked[256]; // never read: no kernel runs

/// A number the checks find interesting: small, an edge, or anything.
int64_t anyInt(FuzzedDataProvider &in, int64_t usual) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
  case 0:
    return in.ConsumeIntegral<int64_t>();
  case 1:
    return in.PickValueInArray<int64_t>(
        {0, -1, 1, INT64_MAX, INT64_MIN, INT32_MAX, 1ll << 32, 1ll << 62});
  case 2:
    return in.ConsumeIntegralInRange<int64_t>(-4, 70);
  default:
    return usual;
  }
}

double anyDouble(FuzzedDataProvider &in, double usual) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
  case 0:
    return in.ConsumeFloatingPoint<double>();
  case 1:
    return in.PickValueInArray<double>({0.0, -0.0, -1.0, 1.0, NAN, INFINITY,
                                        -INFINITY, 1e-310, 1e308});
  default:
    return usual;
  }
}

sympow_layer_desc fuzzDesc(FuzzedDataProvider &in) {
  sympow_layer_desc d;
  if (in.ConsumeBool())
    d = entries()[in.ConsumeIntegralInRange<size_t>(0, entries().size() - 1)]
            .desc;
  else
    sympow_layer_desc_init(&d);
  if (in.ConsumeBool())
    return d;
  d.power = anyInt(in, d.power);
  d.head_dim = anyInt(in, d.head_dim);
  d.value_dim = anyInt(in, d.value_dim);
  d.query_heads = anyInt(in, d.query_heads);
  d.kv_heads = anyInt(in, d.kv_heads);
  d.dtype = sympow_dtype(anyInt(in, d.dtype));
  d.has_log_g = int32_t(anyInt(in, d.has_log_g));
  d.has_log_gamma = int32_t(anyInt(in, d.has_log_gamma));
  d.schedule = sympow_schedule(anyInt(in, d.schedule));
  d.rope_base = anyDouble(in, d.rope_base);
  d.rope_scale = anyDouble(in, d.rope_scale);
  d.rope_dims = anyInt(in, d.rope_dims);
  d.rope_layout = sympow_rope_layout(anyInt(in, d.rope_layout));
  d.warp_length = anyInt(in, d.warp_length);
  d.scale = anyDouble(in, d.scale);
  d.formulation = sympow_formulation(anyInt(in, d.formulation));
  d.chunk_size = anyInt(in, d.chunk_size);
  return d;
}

/// Owns the memory behind the tensors of one call.
struct Arena {
  std::vector<std::unique_ptr<unsigned char[]>> blocks;

  void *alloc(size_t bytes) {
    // 256-aligned, as the C API asks of the workspace and of tensors.
    blocks.emplace_back(new unsigned char[bytes + 256]);
    auto p = reinterpret_cast<uintptr_t>(blocks.back().get());
    return reinterpret_cast<void *>((p + 255) & ~uintptr_t(255));
  }
};

/// The bytes a tensor's description spans, if it is small and sane.
bool backedBytes(const sympow_tensor &t, size_t &bytes) {
  if (t.rank < 0 || t.rank > SYMPOW_MAX_RANK)
    return false;
  int dtype;
  std::memcpy(&dtype, &t.dtype, sizeof dtype);
  unsigned elem = dtype == SYMPOW_DTYPE_BF16 || dtype == SYMPOW_DTYPE_F16 ? 2
                  : dtype == SYMPOW_DTYPE_F32                          ? 4
                  : dtype == SYMPOW_DTYPE_F64                          ? 8
                                                                       : 0;
  if (!elem)
    return false;
  // Last element's offset, in elements; every dim and stride small.
  int64_t last = 0;
  for (int32_t i = 0; i < t.rank; ++i) {
    if (t.shape[i] <= 0)
      return t.shape[i] == 0 ? (bytes = 256, true) : false;
    if (t.shape[i] > (1 << 20) || t.strides[i] < 0 || t.strides[i] > (1 << 20))
      return false;
    last += (t.shape[i] - 1) * t.strides[i];
    if (last > int64_t(kMaxBacked))
      return false;
  }
  bytes = size_t(last + 1) * elem;
  return bytes <= kMaxBacked;
}

/// A tensor: absent, the one the layer wants (maybe perturbed), or any.
sympow_tensor fuzzTensor(FuzzedDataProvider &in, Arena &arena,
                         std::vector<int64_t> wanted, int dtype, bool state) {
  sympow_tensor t{};
  int mode = in.ConsumeIntegralInRange<int>(0, 3);
  if (mode == 0)
    return t; // absent: data null, rank 0
  static_assert(sizeof(t.dtype) == sizeof(int), "a C enum is an int");
  std::memcpy(&t.dtype, &dtype, sizeof dtype);
  t.rank = int32_t(wanted.size());
  for (size_t i = 0; i < wanted.size() && i < SYMPOW_MAX_RANK; ++i)
    t.shape[i] = wanted[i];
  if (mode >= 2) {
    if (in.ConsumeBool()) {
      int any = int(anyInt(in, dtype));
      std::memcpy(&t.dtype, &any, sizeof any);
    }
    if (in.ConsumeBool())
      t.rank = int32_t(anyInt(in, t.rank));
    for (int i = 0; i < SYMPOW_MAX_RANK; ++i)
      if (in.ConsumeBool())
        t.shape[i] = anyInt(in, t.shape[i]);
  }
  int64_t stride = 1;
  for (int i = std::min<int32_t>(std::max<int32_t>(t.rank, 0),
                                 SYMPOW_MAX_RANK);
       i-- > 0;) {
    t.strides[i] = stride;
    stride = t.shape[i] > 0 && stride < (int64_t(1) << 40) &&
                     t.shape[i] < (int64_t(1) << 20)
                 ? stride * t.shape[i]
                 : stride;
  }
  if (mode == 3)
    for (int i = 0; i < SYMPOW_MAX_RANK; ++i)
      if (in.ConsumeBool())
        t.strides[i] = anyInt(in, t.strides[i]);
  size_t bytes = 0;
  if (backedBytes(t, bytes))
    t.data = arena.alloc(bytes);
  else
    // Inputs and outputs are never read or written (no kernel runs); a
    // state is copied or cleared before the kernels, so it must be real.
    t.data = state ? nullptr : kUnbacked;
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0)
    t.data = in.ConsumeBool() || !t.data
                 ? nullptr
                 : static_cast<unsigned char *>(t.data) + 1; // misaligned
  return t;
}

int64_t stateDim(const sympow_layer_desc &d) {
  // C(d + p - 1, p) for the small variants of the registry; anything else
  // is simply a wrong shape for the checks to refuse.
  if (d.power < 2 || d.power > 8 || d.head_dim < 1 || d.head_dim > 64)
    return 1;
  double c = 1;
  for (int64_t i = 1; i <= d.power; ++i)
    c = c * double(d.head_dim - 1 + i) / double(i);
  return int64_t(std::llround(c));
}

sympow_state fuzzState(FuzzedDataProvider &in, Arena &arena,
                       const sympow_layer_desc &d, int64_t B) {
  int64_t D = stateDim(d);
  sympow_state s;
  s.S = fuzzTensor(in, arena, {B, d.kv_heads, D, d.value_dim},
                   SYMPOW_DTYPE_F32, true);
  s.Z = fuzzTensor(in, arena, {B, d.kv_heads, D}, SYMPOW_DTYPE_F32, true);
  s.c = fuzzTensor(in, arena, {B, d.kv_heads}, SYMPOW_DTYPE_F64, true);
  return s;
}

void checkStatus(sympow_status s) {
  if (s != SYMPOW_SUCCESS && !*sympow_last_error())
    std::abort(); // every failure says why
  if (s < SYMPOW_SUCCESS || s > SYMPOW_ERROR_NO_DEVICE)
    std::abort();
}

/// The dtype field as the int a C caller stored (reading it as the C++ enum
/// type would be undefined for values outside the enum).
int rawDtype(const sympow_layer_desc &d) {
  int value;
  std::memcpy(&value, &d.dtype, sizeof value);
  return value;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sympow_context *context = [] {
    sympow_context *c = nullptr;
    if (sympow_context_create(SYMPOW_BACKEND_EMULATOR, 0, &c) != SYMPOW_SUCCESS)
      std::abort();
    return c;
  }();
  FuzzedDataProvider in(data, size);
  Arena arena;
  sympow_layer_desc desc = fuzzDesc(in);
  const sympow_layer_desc *descArg = in.ConsumeIntegralInRange<int>(0, 31)
                                         ? &desc
                                         : nullptr;
  int64_t B = anyInt(in, in.ConsumeIntegralInRange<int64_t>(1, 2));
  int64_t T = anyInt(in, in.ConsumeIntegralInRange<int64_t>(1, 20));
  int64_t Hq = desc.query_heads, H = desc.kv_heads;
  int dtype = rawDtype(desc);

  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0: {
    int compiled = sympow_is_compiled(descArg);
    if (compiled != 0 && compiled != 1)
      std::abort();
    break;
  }
  case 1: {
    size_t bytes = 0;
    sympow_status s = sympow_forward_workspace_size(
        context, descArg, B, T, in.ConsumeIntegral<uint32_t>(),
        in.ConsumeBool() ? &bytes : nullptr);
    if (s != SYMPOW_SUCCESS && !*sympow_last_error())
      std::abort();
    break;
  }
  case 2: {
    sympow_forward_args a{};
    a.q = fuzzTensor(in, arena, {B, T, Hq, desc.head_dim}, dtype, false);
    a.k = fuzzTensor(in, arena, {B, T, H, desc.head_dim}, dtype, false);
    a.v = fuzzTensor(in, arena, {B, T, H, desc.value_dim}, dtype, false);
    a.log_g = fuzzTensor(in, arena, {B, T, H}, SYMPOW_DTYPE_F32, false);
    a.log_gamma = fuzzTensor(in, arena, {H}, SYMPOW_DTYPE_F32, false);
    a.beta = fuzzTensor(in, arena, {B, T, H}, SYMPOW_DTYPE_F32, false);
    a.y = fuzzTensor(in, arena, {B, T, Hq, desc.value_dim}, dtype, false);
    sympow_state initial, final_;
    if (in.ConsumeBool()) {
      initial = fuzzState(in, arena, desc, B);
      a.initial_state = &initial;
    }
    if (in.ConsumeBool()) {
      if (a.initial_state && in.ConsumeBool()) {
        a.final_state = &initial; // updated in place: allowed
      } else {
        final_ = fuzzState(in, arena, desc, B);
        a.final_state = &final_;
      }
    }
    size_t claimed = in.ConsumeIntegralInRange<size_t>(0, 8 << 20);
    a.workspace_bytes = claimed;
    a.workspace = in.ConsumeIntegralInRange<int>(0, 7) ? arena.alloc(claimed)
                                                        : nullptr;
    checkStatus(sympow_forward(context, descArg, &a));
    break;
  }
  case 3: {
    sympow_decode_args a{};
    a.q = fuzzTensor(in, arena, {B, T, Hq, desc.head_dim}, dtype, false);
    a.k = fuzzTensor(in, arena, {B, T, H, desc.head_dim}, dtype, false);
    a.v = fuzzTensor(in, arena, {B, T, H, desc.value_dim}, dtype, false);
    a.log_g = fuzzTensor(in, arena, {B, T, H}, SYMPOW_DTYPE_F32, false);
    a.beta = fuzzTensor(in, arena, {B, T, H}, SYMPOW_DTYPE_F32, false);
    a.log_gamma = fuzzTensor(in, arena, {H}, SYMPOW_DTYPE_F32, false);
    a.y = fuzzTensor(in, arena, {B, T, Hq, desc.value_dim}, dtype, false);
    sympow_state state;
    if (in.ConsumeIntegralInRange<int>(0, 15)) {
      state = fuzzState(in, arena, desc, B);
      a.state = &state;
    }
    checkStatus(sympow_decode(context, descArg, &a));
    break;
  }
  }
  return 0;
}
