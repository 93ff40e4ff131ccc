//===- SymmetricPowerRows.cpp - Walking the rows of phi^p in kernels ------===//

#include "SymmetricPowerRows.h"

#include <cmath>

using namespace mlir;

namespace sympow::gpu_detail {

/// C(top, k) for a run-time `top` and a compile-time k, exactly: each
/// partial product C(top - k + j, j) is an integer.
static Value binomial(Emitter &E, Value top, int64_t k) {
  Value result = E.idx(1);
  for (int64_t j = 1; j <= k; ++j)
    result =
        E.div(E.mul(result, E.add(E.sub(top, E.idx(k)), E.idx(j))), E.idx(j));
  return result;
}

static Value boolean(Emitter &E, bool value) {
  return arith::ConstantIntOp::create(E.b, E.loc, value, 1);
}

static Value logicalAnd(Emitter &E, Value x, Value y) {
  return arith::AndIOp::create(E.b, E.loc, x, y);
}

static Value logicalNot(Emitter &E, Value x) {
  return arith::XOrIOp::create(E.b, E.loc, x, boolean(E, true));
}

SmallVector<Value> unrankMultiset(Emitter &E, int64_t p, int64_t d,
                                  Value rank) {
  SmallVector<Value> row;
  Value low = E.idx(0), rest = rank;
  for (int64_t l = 0; l < p; ++l) {
    int64_t after = p - l - 1; // positions after this one
    // Walk the candidates a = low, low + 1, ...: C(d - a + after - 1, after)
    // rows start with a here; stop at the one whose rows hold `rest`.
    auto found =
        E.forLoop(low, E.idx(d), E.idx(1), {rest, low, boolean(E, true)},
                  [&](Value a, ValueRange st) {
                    Value top = E.add(E.sub(E.idx(d), a), E.idx(after - 1));
                    Value count = binomial(E, top, after);
                    Value searching = st[2];
                    Value inside = E.ult(st[0], count);
                    Value take = logicalAnd(E, searching, inside);
                    Value skip =
                        logicalAnd(E, searching, logicalNot(E, inside));
                    return SmallVector<Value>{
                        E.select(skip, E.sub(st[0], count), st[0]),
                        E.select(take, a, st[1]),
                        logicalAnd(E, searching, logicalNot(E, take))};
                  });
    rest = found[0];
    low = found[1];
    row.push_back(low);
  }
  return row;
}

SmallVector<Value> nextMultiset(Emitter &E, int64_t d, ValueRange row,
                                llvm::function_ref<Value(int64_t)> index) {
  auto constant = [&](int64_t v) { return index ? index(v) : E.idx(v); };
  // The last position whose index can still grow, and its index.
  Value pos = constant(0), grown = E.add(row[0], constant(1));
  for (auto [l, at] : llvm::enumerate(row)) {
    Value canGrow = E.ult(at, constant(d - 1));
    pos = E.select(canGrow, constant(l), pos);
    grown = E.select(canGrow, E.add(at, constant(1)), grown);
  }
  SmallVector<Value> next;
  for (auto [l, at] : llvm::enumerate(row))
    next.push_back(E.select(E.ult(constant(l), pos), at, grown));
  return next;
}

Value multisetRatio(Emitter &E, ValueRange row) {
  int64_t p = row.size();
  double factorial = 1;
  for (int64_t i = 2; i <= p; ++i)
    factorial *= i;
  // prod_k m_k! as the product of the running run lengths: exact in f32 (an
  // integer of at most p!).
  Value run = E.f32(1.0), denominator = E.f32(1.0);
  for (int64_t l = 1; l < p; ++l) {
    Value same = E.cmpi(arith::CmpIPredicate::eq, row[l], row[l - 1]);
    run = E.select(same, E.add(run, E.f32(1.0)), E.f32(1.0));
    denominator = E.mul(denominator, run);
  }
  return E.div(E.f32(factorial), denominator);
}

Value multisetScale(Emitter &E, ValueRange row) {
  return math::SqrtOp::create(E.b, E.loc, multisetRatio(E, row));
}

Value multisetProduct(Emitter &E, Value x, Value offset, ValueRange row) {
  Value product;
  for (Value index : row) {
    Value factor = E.load(x, {E.add(offset, index)});
    product = product ? E.mul(product, factor) : factor;
  }
  return product;
}

} // namespace sympow::gpu_detail
