//===- SymmetricPowerTiles.cpp - Rows of phi^p as tiles -------------------===//

#include "SymmetricPowerTiles.h"
#include "SymmetricPowerRows.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace sympow::gpu_detail {

namespace {

/// N(a) = C(d - a + after, after + 1): multisets of size after + 1 over
/// {a, ..., d - 1}, for an index tile a (exact: each partial product is a
/// binomial coefficient).
Value tailCount(Tiles &t, int64_t d, int64_t after, Value a) {
  Emitter &E = t.E;
  Value top = E.sub(t.index(d + after), a); // d - a + after
  Value count = t.index(1);
  for (int64_t j = 1; j <= after + 1; ++j)
    count =
        E.div(E.mul(count, E.add(E.sub(top, t.index(after + 1)), t.index(j))),
              t.index(j));
  return count;
}

} // namespace

/// The multiset after each of `row` (index tiles), as
/// gpu_detail::nextMultiset on every element.
SmallVector<Value> nextRows(Tiles &t, int64_t d, ValueRange row) {
  int64_t R = Tiles::perThread(row[0]);
  return nextMultiset(t.E, d, row, [&](int64_t v) { return t.index(v, R); });
}

/// The multiset of lexicographic rank `rank` (an index tile), each position
/// by a binary search over the closed-form counts N(a) of the rows from a
/// on: O(p log d) per element (a walk over the candidates took O(p d)).
SmallVector<Value> unrankRows(Tiles &t, int64_t p, int64_t d, Value rank) {
  Emitter &E = t.E;
  int64_t rounds = 1;
  while ((int64_t(1) << rounds) < d)
    ++rounds;
  Value low = t.index(0), rest = rank;
  SmallVector<Value> row;
  for (int64_t l = 0; l < p; ++l) {
    int64_t after = p - l - 1;
    // The largest a in [low, d) with N(low) - N(a) <= rest.
    Value fromLow = tailCount(t, d, after, low);
    Value target = E.sub(fromLow, rest);
    Value lo = low, hi = t.index(d - 1);
    for (int64_t i = 0; i <= rounds; ++i) {
      Value mid = E.div(E.add(E.add(lo, hi), t.index(1)), t.index(2));
      Value ok = E.cmpi(arith::CmpIPredicate::uge, tailCount(t, d, after, mid),
                        target);
      lo = E.select(ok, mid, lo);
      hi = E.select(ok, hi, E.sub(mid, t.index(1)));
    }
    rest = E.sub(rest, E.sub(fromLow, tailCount(t, d, after, lo)));
    low = lo;
    row.push_back(low);
  }
  return row;
}

/// sqrt(p! / prod_k m_k!) of each row, in `type`.
Value rowScales(Tiles &t, Type type, ValueRange row) {
  Emitter &E = t.E;
  Type f32 = t.b.getF32Type();
  double factorial = 1;
  for (size_t i = 2; i <= row.size(); ++i)
    factorial *= double(i);
  Value run = t.constant(f32, 1.0), denominator = t.constant(f32, 1.0);
  for (size_t l = 1; l < row.size(); ++l) {
    Value same = t.eq(row[l], row[l - 1]);
    run =
        E.select(same, E.add(run, t.constant(f32, 1.0)), t.constant(f32, 1.0));
    denominator = E.mul(denominator, run);
  }
  Value ratio = E.div(t.constant(f32, factorial), denominator);
  return math::SqrtOp::create(t.b, t.loc, t.convert(ratio, type));
}

/// prod_l x[offset + i_l] of each row from an f32 workgroup array, in
/// `type`; rows outside the state (mask false) give 0; with `contiguous`
/// each i_l a run read by one vector load.
Value rowProducts(Tiles &t, Type type, Value x, int64_t offset, ValueRange row,
                  Value mask, bool contiguous) {
  Value product;
  for (Value index : row) {
    Value at =
        offset ? t.E.add(index, t.index(offset, t.perThread(index))) : index;
    Value factor = t.convert(t.load(x, at, mask, contiguous), type);
    product = product ? t.E.mul(product, factor) : factor;
  }
  return product;
}

} // namespace sympow::gpu_detail
