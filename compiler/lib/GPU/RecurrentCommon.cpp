//===- RecurrentCommon.cpp - What the two recurrent kernels share ---------===//

#include "RecurrentCommon.h"

#include "sympow/Support/SymmetricPowerDim.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;

namespace sympow::recurrent {

StateSplit stateSplit(const AttentionKernelSpec &spec) {
  return recurrentSplit(spec.p, spec.d, spec.e, spec.h,
                        spec.dtype != ElementKind::F32);
}

Type accumulatorType(MLIRContext *ctx, const AttentionKernelSpec &spec) {
  return spec.dtype == ElementKind::F32 ? Type(Float64Type::get(ctx))
                                        : Type(Float32Type::get(ctx));
}

Value logGate(Emitter &E, const AttentionKernelSpec &spec, Value logG,
              Value logGamma, Value b, Value T, Value h, Value s, Tiles *t,
              Value mask) {
  Type f64 = E.b.getF64Type();
  auto part = [&](Value base, Value at) {
    if (t)
      return t->convert(t->load(base, t->splat(at), mask), f64);
    return E.convert(E.load(base, {at}), f64);
  };
  auto constant = [&](double v) { return t ? t->constant(f64, v) : E.f64(v); };
  Value gate = constant(0.0);
  if (spec.hasLogG())
    gate = part(logG, tokenOffset(E, b, T, s, spec.h, h, 1));
  if (spec.hasLogGamma())
    gate = E.add(gate, part(logGamma, h));
  return E.max(gate, constant(gpu_detail::kLogGateFloor));
}

Value countStep(Emitter &E, const AttentionKernelSpec &spec, Value beta,
                Value b, Value T, Value h, Value s) {
  if (!spec.hasBeta())
    return E.f64(1.0);
  return E.convert(E.load(beta, {tokenOffset(E, b, T, s, spec.h, h, 1)}),
                   E.b.getF64Type());
}

} // namespace sympow::recurrent
