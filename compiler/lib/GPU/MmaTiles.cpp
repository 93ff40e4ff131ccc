//===- MmaTiles.cpp - Warp-level mma.sync tiles for kernel generators -----===//

#include "MmaTiles.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace sympow::gpu_detail {

MmaTiles::MmaTiles(Emitter &E, Type elem, Value lane)
    : E(E), elem(elem), lane(lane) {
  fragA = VectorType::get({4, 2}, elem);
  fragB = VectorType::get({2, 2}, elem);
  fragC = VectorType::get({2, 2}, E.b.getF32Type());
  g = E.div(lane, E.idx(4));
  t2 = E.mul(E.rem(lane, E.idx(4)), E.idx(2));
  g8 = E.add(g, E.idx(8));
  t21 = E.add(t2, E.idx(1));
  lane16 = E.rem(lane, E.idx(16));
  lane8 = E.rem(lane, E.idx(8));
  // ldmatrix x4 for A: lanes 8i..8i+7 address matrix i = (rows 0-7 | 8-15)
  // x (cols 0-7 | 8-15), rows first.
  aCol = E.mul(E.div(lane, E.idx(16)), E.idx(8));
  // ldmatrix x2 for B stored [n][k]: matrix 0 is k 0-7, matrix 1 k 8-15.
  bCol = E.mul(E.rem(E.div(lane, E.idx(8)), E.idx(2)), E.idx(8));
  // ldmatrix x4 .trans for A stored [k][m]: matrix i covers m 8 (i % 2)
  // and k 8 (i / 2).
  tRow = E.add(lane8, E.mul(E.div(lane, E.idx(16)), E.idx(8)));
  tCol = E.mul(E.rem(E.div(lane, E.idx(8)), E.idx(2)), E.idx(8));
}

Value MmaTiles::mma(Value a, Value b, Value c) {
  return nvgpu::MmaSyncOp::create(E.b, E.loc, a, b, c,
                                  ArrayRef<int64_t>{16, 8, 16});
}

Value MmaTiles::zero() {
  return arith::ConstantOp::create(
      E.b, E.loc, DenseElementsAttr::get(fragC, E.b.getF32FloatAttr(0.0)));
}

Value MmaTiles::element(Value acc, int ri, int ci) {
  return vector::ExtractOp::create(E.b, E.loc, acc, ArrayRef<int64_t>{ri, ci});
}

Value MmaTiles::fromElements(ValueRange elems) {
  return vector::FromElementsOp::create(E.b, E.loc, fragC, elems);
}

Value MmaTiles::ldmatrix(Value mem, ValueRange prefix, Value r, Value c,
                         VectorType type, bool trans) {
  SmallVector<Value> indices(prefix.begin(), prefix.end());
  indices.append({r, c});
  return nvgpu::LdMatrixOp::create(E.b, E.loc, type, mem, indices, trans,
                                   type.getDimSize(0));
}

Value MmaTiles::loadA(Value mem, Value m0, Value k0, ValueRange prefix) {
  return ldmatrix(mem, prefix, E.add(m0, lane16), E.add(k0, aCol), fragA,
                  false);
}

Value MmaTiles::loadATrans(Value mem, Value k0, Value m0, ValueRange prefix) {
  return ldmatrix(mem, prefix, E.add(k0, tRow), E.add(m0, tCol), fragA, true);
}

Value MmaTiles::loadB(Value mem, Value n0, Value k0, ValueRange prefix) {
  return ldmatrix(mem, prefix, E.add(n0, lane8), E.add(k0, bCol), fragB, false);
}

Value MmaTiles::loadBTrans(Value mem, Value k0, Value n0, ValueRange prefix) {
  return ldmatrix(mem, prefix, E.add(k0, lane16), n0, fragB, true);
}

void MmaTiles::storeSplit(Emitter &E, Value x, Type elem, Value hi, Value lo,
                          ValueRange indices) {
  Value h = E.convert(x, elem);
  E.store(h, hi, indices);
  if (lo)
    E.store(E.convert(E.sub(x, E.convert(h, x.getType())), elem), lo, indices);
}

} // namespace sympow::gpu_detail
