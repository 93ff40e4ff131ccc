//===- RecurrentCommon.cpp - What the two recurrent kernels share ---------===//

#include "RecurrentCommon.h"

#include "sympow/Support/SymmetricPowerDim.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;

namespace sympow::recurrent {

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;
} // namespace

StateSplit stateSplit(const AttentionKernelSpec &spec) {
  return recurrentSplit(spec.p, spec.d, spec.e, spec.h);
}

Type accumulatorType(MLIRContext *ctx, const AttentionKernelSpec &spec) {
  return spec.dtype == ElementKind::F32 ? Type(Float64Type::get(ctx))
                                        : Type(Float32Type::get(ctx));
}

Value partnerDim(Tiles &t, const AttentionKernelSpec &spec, Value dim) {
  Emitter &E = t.E;
  if (!spec.rotates())
    return dim;
  int64_t r = spec.effectiveRotaryDims();
  Value rotated = E.ult(dim, t.index(r));
  if (spec.layout == RotaryLayout::Half) {
    Value first = E.ult(dim, t.index(r / 2));
    Value other =
        E.select(first, E.add(dim, t.index(r / 2)), E.sub(dim, t.index(r / 2)));
    return E.select(rotated, other, dim);
  }
  Value even = t.eq(E.rem(dim, t.index(2)), t.index(0));
  Value other = E.select(even, E.add(dim, t.index(1)), E.sub(dim, t.index(1)));
  return E.select(rotated, other, dim);
}

Value rotate(Tiles &t, const AttentionKernelSpec &spec, Value dim, Value x,
             Value partner, Value count) {
  Emitter &E = t.E;
  if (!spec.rotates())
    return x;
  Type f32 = t.b.getF32Type(), f64 = t.b.getF64Type();
  int64_t r = spec.effectiveRotaryDims(), half = r / 2;
  Value rotated = E.ult(dim, t.index(r));
  // The pair m of each dim, and whether the dim is the pair's first.
  Value m, first;
  if (spec.layout == RotaryLayout::Half) {
    first = E.ult(dim, t.index(half));
    m = E.select(first, dim, E.sub(dim, t.index(half)));
  } else {
    first = t.eq(E.rem(dim, t.index(2)), t.index(0));
    m = E.div(dim, t.index(2));
  }
  m = E.select(rotated, m, t.index(0));
  // theta_m as emitThetaTable computes it.
  Value mF64 = arith::SIToFPOp::create(
      t.b, t.loc, t.like(m, f64),
      arith::IndexCastOp::create(t.b, t.loc, t.like(m, t.b.getI64Type()), m));
  Value frac =
      E.mul(mF64, t.constant(f64, -2.0 * std::log(spec.rotaryBase) / r));
  Value rate = E.mul(t.constant(f64, spec.rateScale), E.exp(frac));
  Value alpha = E.mul(t.splat(count), rate);
  Value turns = E.floor(E.mul(alpha, t.constant(f64, 1.0 / kTwoPi)));
  Value angle = t.convert(E.fma(turns, t.constant(f64, -kTwoPi), alpha), f32);
  auto afn = arith::FastMathFlags::afn;
  Value cos = E.select(rotated, math::CosOp::create(t.b, t.loc, angle, afn),
                       t.constant(f32, 1.0));
  Value sin = E.select(rotated, math::SinOp::create(t.b, t.loc, angle, afn),
                       t.constant(f32, 0.0));
  // (x0, x1) -> (x0 cos - x1 sin, x0 sin + x1 cos).
  Value asFirst = E.sub(E.mul(x, cos), E.mul(partner, sin));
  Value asSecond = E.add(E.mul(partner, sin), E.mul(x, cos));
  return E.select(first, asFirst, asSecond);
}

Value tokenOffset(Emitter &E, Value b, Value T, Value t, int64_t heads,
                  Value head, int64_t width) {
  Value bt = E.add(E.mul(b, T), t);
  return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(width));
}

Value logGate(Emitter &E, const AttentionKernelSpec &spec, Value logG,
              Value logGamma, Value b, Value T, Value h, Value s) {
  Type f64 = E.b.getF64Type();
  Value gate = E.f64(0.0);
  if (spec.hasLogG())
    gate =
        E.convert(E.load(logG, {tokenOffset(E, b, T, s, spec.h, h, 1)}), f64);
  if (spec.hasLogGamma())
    gate = E.add(gate, E.convert(E.load(logGamma, {h}), f64));
  return E.max(gate, E.f64(gpu_detail::kLogGateFloor));
}

Value countStep(Emitter &E, const AttentionKernelSpec &spec, Value beta,
                Value b, Value T, Value h, Value s) {
  if (!spec.hasBeta())
    return E.f64(1.0);
  return E.convert(E.load(beta, {tokenOffset(E, b, T, s, spec.h, h, 1)}),
                   E.b.getF64Type());
}

} // namespace sympow::recurrent
