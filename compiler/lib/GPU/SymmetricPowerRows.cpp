//===- SymmetricPowerRows.cpp - Walking the rows of phi^p in kernels ------===//

#include "SymmetricPowerRows.h"

#include <cmath>

using namespace mlir;

namespace sympow::gpu_detail {

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

} // namespace sympow::gpu_detail
