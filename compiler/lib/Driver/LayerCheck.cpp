//===- LayerCheck.cpp - Generated kernels against the reference -----------===//

#include "sympow/Compiler/Driver/LayerCheck.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Reference/Forward.h"
#include "sympow/Reference/Rounding.h"
#include "sympow/Runtime/EmulatorBackend.h"
#include "sympow/Runtime/HostLayer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <random>

using namespace mlir;

namespace sympow::check {
namespace {

namespace ref = sympow::reference;

ref::InputType inputType(ElementKind dtype) {
  switch (dtype) {
  case ElementKind::BF16:
    return ref::InputType::BF16;
  case ElementKind::F16:
    return ref::InputType::F16;
  case ElementKind::F32:
    return ref::InputType::F32;
  }
  return ref::InputType::F32;
}

ref::Schedule scheduleOf(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::None:
    return ref::Schedule::None;
  case ScheduleKind::Uniform:
    return ref::Schedule::Uniform;
  case ScheduleKind::Learned:
    return ref::Schedule::Learned;
  case ScheduleKind::Warped:
    return ref::Schedule::Warped;
  case ScheduleKind::Blend:
    return ref::Schedule::Blend;
  }
  return ref::Schedule::None;
}

int64_t stateDim(const AttentionKernelSpec &s) {
  return symmetricPowerDim(s.d, s.p).value_or(-1);
}

ref::LayerDesc describe(const AttentionKernelSpec &s, int64_t B, int64_t T,
                        bool state) {
  ref::LayerDesc desc;
  desc.shape = {B, T, s.hq, s.h, s.d, s.e};
  desc.power = static_cast<int>(s.p);
  desc.scale = s.effectiveScale();
  desc.rotary.base = s.rotaryBase;
  desc.rotary.rateScale = s.rateScale;
  desc.rotary.dims = s.rotaryDims;
  desc.rotary.layout = s.layout == RotaryLayout::Half
                           ? ref::RotaryLayout::Half
                           : ref::RotaryLayout::Interleaved;
  desc.schedule = scheduleOf(s.schedule);
  if (s.relativeSchedule())
    desc.warpLength = static_cast<double>(s.length);
  desc.hasLogG = s.hasLogG();
  desc.hasLogGamma = s.hasLogGamma();
  desc.formulation =
      state ? ref::Formulation::Recurrent : ref::Formulation::Attention;
  desc.inputType = ref::InputType::F64; // inputs arrive already rounded
  desc.wantFinalState = state;
  return desc;
}

ref::LayerInputs inputsOf(const AttentionKernelSpec &s, const LayerCase &c) {
  ref::LayerInputs in;
  in.q = ref::Tensor({c.B, c.T, s.hq, s.d}, c.q);
  in.k = ref::Tensor({c.B, c.T, s.h, s.d}, c.k);
  in.v = ref::Tensor({c.B, c.T, s.h, s.e}, c.v);
  if (s.hasLogG())
    in.logG = ref::Tensor({c.B, c.T, s.h}, c.logG);
  if (s.hasLogGamma())
    in.logGamma = ref::Tensor({s.h}, c.logGamma);
  if (s.hasBeta())
    in.beta = ref::Tensor({c.B, c.T, s.h}, c.beta);
  if (c.hasState)
    in.initialState = ref::State{ref::Tensor({c.B, s.h, stateDim(s), s.e}, c.s),
                                 ref::Tensor({c.B, s.h, stateDim(s)}, c.z),
                                 ref::Tensor({c.B, s.h}, c.c)};
  return in;
}

/// Fills the parts of `c` that depend on the token count.
void randomTokens(const AttentionKernelSpec &s, LayerCase &c,
                  std::mt19937_64 &rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> gate(0.9, 1.0);
  auto fill = [&](std::vector<double> &x, int64_t n, auto draw) {
    x.resize(n);
    for (double &value : x)
      value = draw();
  };
  ref::InputType in = inputType(s.dtype);
  auto input = [&] { return ref::roundTo(in, normal(rng)); };
  auto f32 = [](double x) {
    return static_cast<double>(static_cast<float>(x));
  };
  int64_t tokens = c.B * c.T;
  fill(c.q, tokens * s.hq * s.d, input);
  fill(c.k, tokens * s.h * s.d, input);
  fill(c.v, tokens * s.h * s.e, input);
  fill(c.logG, tokens * s.h, [&] { return f32(std::log(gate(rng))); });
  fill(c.logGamma, s.h, [&] { return f32(std::log(gate(rng))); });
  fill(c.beta, tokens * s.h, [&] { return f32(1 + std::tanh(normal(rng))); });
}

} // namespace

LayerCase randomLayer(const AttentionKernelSpec &spec, int64_t B, int64_t T,
                      unsigned seed, bool withState) {
  std::mt19937_64 rng(seed);
  LayerCase c;
  c.B = B;
  if (withState) {
    // A realistic state: the reference's after a short random prefix.
    LayerCase prefix;
    prefix.B = B;
    prefix.T = 3;
    randomTokens(spec, prefix, rng);
    ref::Result<ref::LayerOutputs> out =
        ref::forward(describe(spec, B, prefix.T, true), inputsOf(spec, prefix));
    if (out.isOk()) {
      c.hasState = true;
      auto toF32 = [](const std::vector<double> &x) {
        std::vector<double> y(x.size());
        for (size_t i = 0; i < x.size(); ++i)
          y[i] = static_cast<float>(x[i]);
        return y;
      };
      c.s = toF32(out->finalState->S.data);
      c.z = toF32(out->finalState->Z.data);
      c.c = out->finalState->c.data;
    }
  }
  c.T = T;
  randomTokens(spec, c, rng);
  return c;
}

ReferenceResult runReference(const AttentionKernelSpec &spec,
                             const LayerCase &layer) {
  ReferenceResult result;
  ref::Result<ref::LayerOutputs> out = ref::forward(
      describe(spec, layer.B, layer.T, layer.hasState), inputsOf(spec, layer));
  if (out.isError()) {
    result.error = out.message();
    return result;
  }
  result.y = out->y.data;
  if (out->finalState) {
    result.s = out->finalState->S.data;
    result.z = out->finalState->Z.data;
    result.c = out->finalState->c.data;
  }
  return result;
}

CompiledLayer::CompiledLayer(const AttentionKernelSpec &spec,
                             runtime::Formulation formulation, int64_t chunk,
                             KernelTarget target, const std::string &cacheDir) {
  LayerKernelRequest request{spec, formulation, chunk};
  variant = layerVariant(request);
  auto compiled = compileLayerKernels(request, target, {}, cacheDir);
  if (!compiled) {
    problem = llvm::toString(compiled.takeError());
    return;
  }
  kernels = std::move(*compiled);
  backend = runtime::createEmulatorBackend(runtime::EmulatorCounting::Off);
  library = std::make_unique<runtime::KernelLibrary>(
      *backend, kernels->images(), kernels->infos());
}

CompiledLayer::~CompiledLayer() {
  library.reset(); // unloads the module before the backend goes
}

KernelResult CompiledLayer::run(const LayerCase &layer) {
  KernelResult result;
  if (!problem.empty()) {
    result.error = problem;
    return result;
  }
  Result<runtime::HostOutputs> out =
      runtime::runLayerFromHost(*backend, *library, variant, layer);
  if (out.isError()) {
    result.error = out.message();
    return result;
  }
  result.y = std::move(out->y);
  result.s = std::move(out->s);
  result.z = std::move(out->z);
  result.c = std::move(out->c);
  return result;
}

KernelResult runLayer(const AttentionKernelSpec &spec,
                      runtime::Formulation formulation, int64_t chunk,
                      const LayerCase &layer, KernelTarget target,
                      const std::string &cacheDir) {
  return CompiledLayer(spec, formulation, chunk, target, cacheDir).run(layer);
}

std::vector<ErrorAgainstBound> errors(const KernelResult &got,
                                      const ReferenceResult &want,
                                      ElementKind dtype, bool state) {
  std::vector<ErrorAgainstBound> out;
  auto add = [&](const char *name, const std::vector<double> &a,
                 const std::vector<double> &b, double bound) {
    out.push_back({name, maxAbsDiff(a, b), bound});
  };
  double tol = dtype == ElementKind::F32 ? 1e-4 : 1e-2;
  add("y", got.y, want.y, tol * maxAbs(want.y));
  if (state) {
    add("S", got.s, want.s, 1e-4 * maxAbs(want.s));
    add("Z", got.z, want.z, 1e-4 * maxAbs(want.z));
    add("c", got.c, want.c, 1e-9 * (1 + maxAbs(want.c)));
  }
  return out;
}

std::string mismatch(const KernelResult &got, const ReferenceResult &want,
                     ElementKind dtype, bool state) {
  return mismatch(errors(got, want, dtype, state));
}

std::string mismatch(const std::vector<ErrorAgainstBound> &errors) {
  std::string out;
  for (const ErrorAgainstBound &e : errors)
    if (!(e.error <= e.bound))
      out += std::string(out.empty() ? "" : "\n") + e.name + ": max error " +
             std::to_string(e.error) + " exceeds SPEC's bound " +
             std::to_string(e.bound);
  return out;
}

std::string errorShares(const std::vector<ErrorAgainstBound> &errors) {
  std::string out;
  for (const ErrorAgainstBound &e : errors) {
    char share[32];
    std::snprintf(share, sizeof share, "%.2g", e.error / e.bound);
    out += std::string(out.empty() ? "" : ", ") + e.name + " " + share;
  }
  return out;
}

double maxAbs(const std::vector<double> &x) {
  double m = 0;
  for (double v : x)
    m = std::max(m, std::abs(v));
  return m;
}

double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size() || a.empty())
    return std::numeric_limits<double>::infinity();
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = std::abs(a[i] - b[i]);
    if (std::isnan(d))
      return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

} // namespace sympow::check
