// What a trainer does with a sympow kernel library: describe the layer,
// query the workspace, run forward (and carry the state across two calls),
// all through sympow_kernels.h. Here every variant compiled into the
// library runs on random inputs and is checked against the definition
// (reference.cpp) with SPEC's accuracy bound.
//
//   trainer [--backend emulator|cuda] [--batch B] [--tokens T]
//           [--only SUBSTRING]

#include "reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char *what) {
  std::fprintf(stderr, "trainer: %s: %s\n", what, sympow_last_error());
  std::exit(1);
}

void check(sympow_status status, const char *what) {
  if (status != SYMPOW_SUCCESS)
    die(what);
}

// ------------------------------------------------ 16-bit floats (RNE)
uint16_t toBf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}
float fromBf16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}
float fromF16(uint16_t h) {
  int exponent = (h >> 10) & 31, mantissa = h & 1023;
  float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                    : exponent == 31
                        ? (mantissa ? NAN : INFINITY)
                        : std::ldexp(float(mantissa | 1024), exponent - 25);
  return h & 0x8000 ? -magnitude : magnitude;
}
uint16_t toF16(float x) {
  // Search by bisection over the ordered positive encodings: exact RNE for
  // the normal-range values the inputs use, and short.
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  float a = std::fabs(x);
  uint16_t lo = 0, hi = 0x7bff;
  while (lo < hi) {
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (fromF16(mid) <= a)
      lo = mid;
    else
      hi = uint16_t(mid - 1);
  }
  if (lo < 0x7bff) {
    float down = a - fromF16(lo), up = fromF16(uint16_t(lo + 1)) - a;
    if (up < down || (up == down && (lo & 1)))
      ++lo;
  }
  return uint16_t(sign | lo);
}

/// Host data in the layer's dtype, rounded values kept in f64.
struct Encoded {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

Encoded encode(sympow_dtype dtype, const std::vector<double> &x) {
  Encoded out;
  size_t n = x.size(), width = dtype == SYMPOW_DTYPE_F32 ? 4 : 2;
  out.bytes.resize(n * width);
  out.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    float f = float(x[i]);
    if (dtype == SYMPOW_DTYPE_F32) {
      std::memcpy(&out.bytes[i * 4], &f, 4);
      out.values[i] = f;
    } else {
      uint16_t h = dtype == SYMPOW_DTYPE_BF16 ? toBf16(f) : toF16(f);
      std::memcpy(&out.bytes[i * 2], &h, 2);
      out.values[i] = dtype == SYMPOW_DTYPE_BF16 ? fromBf16(h) : fromF16(h);
    }
  }
  return out;
}

std::vector<double> decode(sympow_dtype dtype, const std::vector<uint8_t> &b) {
  size_t width = dtype == SYMPOW_DTYPE_F32 ? 4 : 2, n = b.size() / width;
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == SYMPOW_DTYPE_F32) {
      float f;
      std::memcpy(&f, &b[i * 4], 4);
      out[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, &b[i * 2], 2);
      out[i] = dtype == SYMPOW_DTYPE_BF16 ? fromBf16(h) : fromF16(h);
    }
  }
  return out;
}

/// Device memory of the context, freed at scope end.
struct DeviceBuffer {
  sympow_context *context;
  void *ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer(sympow_context *context, size_t bytes)
      : context(context), bytes(bytes) {
    if (bytes)
      check(sympow_device_alloc(context, bytes, &ptr), "sympow_device_alloc");
  }
  DeviceBuffer(sympow_context *context, const std::vector<uint8_t> &host)
      : DeviceBuffer(context, host.size()) {
    if (bytes)
      check(sympow_copy_to_device(context, ptr, host.data(), bytes),
            "sympow_copy_to_device");
  }
  ~DeviceBuffer() { sympow_device_free(context, ptr); }
  std::vector<uint8_t> read() const {
    std::vector<uint8_t> host(bytes);
    if (bytes)
      check(sympow_copy_to_host(context, host.data(), ptr, bytes),
            "sympow_copy_to_host");
    return host;
  }
};

template <typename T> std::vector<uint8_t> asBytes(const std::vector<T> &x) {
  std::vector<uint8_t> b(x.size() * sizeof(T));
  std::memcpy(b.data(), x.data(), b.size());
  return b;
}

sympow_tensor tensor(void *data, sympow_dtype dtype,
                     std::initializer_list<int64_t> shape) {
  return sympow_tensor_contiguous(data, dtype, int32_t(shape.size()),
                                  shape.begin());
}

int64_t stateDim(const sympow_layer_desc &d) {
  int64_t dim = 1;
  for (int64_t i = 1; i <= d.power; ++i)
    dim = dim * (d.head_dim - 1 + i) / i;
  return dim;
}

/// Rows [t0, t1) of a [B, T, rest] tensor.
template <typename Element>
std::vector<Element> tokens(const std::vector<Element> &x, int64_t B, int64_t T,
                            int64_t t0, int64_t t1) {
  size_t rest = x.size() / size_t(B * T);
  std::vector<Element> out;
  for (int64_t b = 0; b < B; ++b)
    out.insert(out.end(), x.begin() + (b * T + t0) * rest,
               x.begin() + (b * T + t1) * rest);
  return out;
}

/// Runs forward over tokens [t0, t1); returns y, and the state in `state`
/// buffers when given (initial from `initial`).
std::vector<double> forward(sympow_context *ctx, const sympow_layer_desc &d,
                            const std::vector<Encoded> &qkv,
                            const LayerInputs &in, int64_t t0, int64_t t1,
                            const sympow_state *initial, sympow_state *final) {
  int64_t B = in.B, T = t1 - t0, Hq = d.query_heads, H = d.kv_heads;
  sympow_dtype dt = d.dtype;
  auto slice16 = [&](const Encoded &e) {
    return tokens(e.bytes, B, in.T, t0, t1);
  };
  DeviceBuffer q(ctx, slice16(qkv[0])), k(ctx, slice16(qkv[1])),
      v(ctx, slice16(qkv[2]));
  size_t width = dt == SYMPOW_DTYPE_F32 ? 4 : 2;
  DeviceBuffer y(ctx, size_t(B * T * Hq * d.value_dim) * width);
  auto f32 = [&](const std::vector<double> &x, bool perToken) {
    std::vector<float> f(x.begin(), x.end());
    return asBytes(perToken ? tokens(f, B, in.T, t0, t1) : f);
  };
  DeviceBuffer logG(ctx,
                    d.has_log_g ? f32(in.logG, true) : std::vector<uint8_t>()),
      logGamma(ctx, d.has_log_gamma ? f32(in.logGamma, false)
                                    : std::vector<uint8_t>()),
      beta(ctx, d.schedule == SYMPOW_SCHEDULE_LEARNED ? f32(in.beta, true)
                                                      : std::vector<uint8_t>());
  sympow_forward_args a{};
  a.q = tensor(q.ptr, dt, {B, T, Hq, d.head_dim});
  a.k = tensor(k.ptr, dt, {B, T, H, d.head_dim});
  a.v = tensor(v.ptr, dt, {B, T, H, d.value_dim});
  a.y = tensor(y.ptr, dt, {B, T, Hq, d.value_dim});
  if (d.has_log_g)
    a.log_g = tensor(logG.ptr, SYMPOW_DTYPE_F32, {B, T, H});
  if (d.has_log_gamma)
    a.log_gamma = tensor(logGamma.ptr, SYMPOW_DTYPE_F32, {H});
  if (d.schedule == SYMPOW_SCHEDULE_LEARNED)
    a.beta = tensor(beta.ptr, SYMPOW_DTYPE_F32, {B, T, H});
  a.initial_state = initial;
  a.final_state = final;
  size_t bytes = 0;
  uint32_t flags = (initial ? SYMPOW_WITH_INITIAL_STATE : 0) |
                   (final ? SYMPOW_WITH_FINAL_STATE : 0);
  check(sympow_forward_workspace_size(ctx, &d, B, T, flags, &bytes),
        "sympow_forward_workspace_size");
  DeviceBuffer workspace(ctx, bytes);
  a.workspace = workspace.ptr;
  a.workspace_bytes = bytes;
  check(sympow_forward(ctx, &d, &a), "sympow_forward");
  check(sympow_synchronize(ctx, nullptr), "sympow_synchronize");
  return decode(dt, y.read());
}

double maxAbs(const std::vector<double> &x) {
  double m = 0;
  for (double v : x)
    m = std::max(m, std::fabs(v));
  return m;
}

double maxDiff(const std::vector<double> &a, const std::vector<double> &b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

} // namespace

int main(int argc, char **argv) {
  sympow_backend backend = SYMPOW_BACKEND_EMULATOR;
  int64_t B = 1, T = 33;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--backend" && next) {
      backend = std::string(next) == "cuda" ? SYMPOW_BACKEND_CUDA
                                            : SYMPOW_BACKEND_EMULATOR;
      ++i;
    } else if (arg == "--batch" && next) {
      B = std::atoll(next), ++i;
    } else if (arg == "--tokens" && next) {
      T = std::atoll(next), ++i;
    } else if (arg == "--only" && next) {
      only = next, ++i;
    } else {
      std::fprintf(stderr,
                   "usage: trainer [--backend emulator|cuda] [--batch B] "
                   "[--tokens T] [--only SUBSTRING]\n");
      return 2;
    }
  }
  sympow_context *ctx = nullptr;
  check(sympow_context_create(backend, 0, &ctx), "sympow_context_create");
  std::printf("library: %zu compiled variant(s)\n", sympow_variant_count());

  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> gate(0.9, 1.0), rate(0.5, 1.5);
  int failures = 0, ran = 0;
  for (size_t index = 0; index < sympow_variant_count(); ++index) {
    std::string name = sympow_variant_name(index);
    if (!only.empty() && name.find(only) == std::string::npos)
      continue;
    sympow_layer_desc d;
    check(sympow_variant_desc(index, &d), "sympow_variant_desc");
    LayerInputs in;
    in.B = B, in.T = T;
    int64_t H = d.kv_heads;
    auto randn = [&](size_t n) {
      std::vector<double> x(n);
      for (double &v : x)
        v = normal(rng);
      return x;
    };
    std::vector<Encoded> qkv = {
        encode(d.dtype, randn(size_t(B * T * d.query_heads * d.head_dim))),
        encode(d.dtype, randn(size_t(B * T * H * d.head_dim))),
        encode(d.dtype, randn(size_t(B * T * H * d.value_dim)))};
    in.q = qkv[0].values, in.k = qkv[1].values, in.v = qkv[2].values;
    // Gates in (0.9, 1) per SPEC's accuracy protocol; f32 as the kernels
    // read them.
    auto f32 = [](double x) { return double(float(x)); };
    if (d.has_log_g)
      for (size_t i = 0; i < size_t(B * T * H); ++i)
        in.logG.push_back(f32(std::log(gate(rng))));
    if (d.has_log_gamma)
      for (int64_t h = 0; h < H; ++h)
        in.logGamma.push_back(f32(std::log(gate(rng))));
    if (d.schedule == SYMPOW_SCHEDULE_LEARNED)
      for (size_t i = 0; i < size_t(B * T * H); ++i)
        in.beta.push_back(f32(rate(rng)));

    std::vector<double> ref = referenceLayer(d, in);
    double bound = (d.dtype == SYMPOW_DTYPE_F32 ? 1e-4 : 1e-2) * maxAbs(ref);
    std::vector<double> y = forward(ctx, d, qkv, in, 0, T, nullptr, nullptr);
    double error = maxDiff(y, ref);
    bool ok = error <= bound;

    // A stateful formulation also runs in two calls, the state carried.
    std::string split;
    if (d.formulation != SYMPOW_FORMULATION_ATTENTION && T > 1) {
      int64_t half = T / 2, D = stateDim(d);
      DeviceBuffer S(ctx, size_t(B * H * D * d.value_dim) * 4),
          Z(ctx, size_t(B * H * D) * 4), c(ctx, size_t(B * H) * 8);
      sympow_state state{
          tensor(S.ptr, SYMPOW_DTYPE_F32, {B, H, D, d.value_dim}),
          tensor(Z.ptr, SYMPOW_DTYPE_F32, {B, H, D}),
          tensor(c.ptr, SYMPOW_DTYPE_F64, {B, H})};
      std::vector<double> first =
          forward(ctx, d, qkv, in, 0, half, nullptr, &state);
      // The second call updates the state in place.
      std::vector<double> second =
          forward(ctx, d, qkv, in, half, T, &state, &state);
      std::vector<double> joined;
      size_t row = size_t(d.query_heads * d.value_dim);
      for (int64_t b = 0; b < B; ++b) {
        joined.insert(joined.end(), first.begin() + b * half * row,
                      first.begin() + (b + 1) * half * row);
        joined.insert(joined.end(), second.begin() + b * (T - half) * row,
                      second.begin() + (b + 1) * (T - half) * row);
      }
      double splitError = maxDiff(joined, ref);
      ok = ok && splitError <= bound;
      char text[96];
      std::snprintf(text, sizeof(text), ", in two calls %.2e", splitError);
      split = text;
    }
    std::printf("%s %s: max|y - y_ref| = %.2e%s (bound %.2e)\n",
                ok ? "ok  " : "FAIL", name.c_str(), error, split.c_str(),
                bound);
    failures += !ok;
    ++ran;
  }
  sympow_context_destroy(ctx);
  if (!ran) {
    std::fprintf(stderr, "trainer: no variant matched\n");
    return 1;
  }
  std::printf("%d of %d variant(s) within SPEC's bound\n", ran - failures, ran);
  return failures ? 1 : 0;
}
