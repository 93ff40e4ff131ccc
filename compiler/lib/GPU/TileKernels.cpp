//===- TileKernels.cpp - Building kernels in the tile IR ------------------===//

#include "TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace sympow::gpu_detail {

RankedTensorType Tiles::type(Type element, int64_t perThread) {
  return RankedTensorType::get(
      {threads * perThread}, element,
      tile::BlockedAttr::get(b.getContext(), threads, perThread));
}

Type Tiles::like(Value x, Type element) {
  return tile::withElementType(x.getType(), element);
}

Value Tiles::splat(Value scalar, int64_t perThread) {
  return tile::SplatOp::create(b, loc, type(scalar.getType(), perThread),
                               scalar);
}

Value Tiles::index(int64_t v, int64_t perThread) {
  return splat(E.idx(v), perThread);
}

Value Tiles::constant(Type element, double v, int64_t perThread) {
  return splat(E.fconst(element, v), perThread);
}

Value Tiles::range(int64_t perThread) {
  return tile::RangeOp::create(b, loc, type(b.getIndexType(), perThread));
}

Value Tiles::load(Value base, Value at, Value mask, bool contiguous) {
  Type element = cast<MemRefType>(base.getType()).getElementType();
  auto result = cast<RankedTensorType>(like(at, element));
  Value other;
  if (mask)
    other = tile::SplatOp::create(b, loc, result, E.fconst(element, 0.0));
  auto op = tile::LoadOp::create(b, loc, result, base, at, mask, other);
  if (contiguous)
    op.setContiguous(true);
  return op;
}

void Tiles::store(Value x, Value base, Value at, Value mask, bool contiguous) {
  auto op = tile::StoreOp::create(b, loc, x, base, at, mask);
  if (contiguous)
    op.setContiguous(true);
}

void Tiles::storeBf16(Value x, Value hi, Value lo, Value at, Value mask,
                      bool contiguous) {
  if (!lo) {
    store(convert(x, b.getBF16Type()), hi, at, mask, contiguous);
    return;
  }
  auto [xHi, xLo] = tile::splitBf16(b, loc, x);
  store(xHi, hi, at, mask, contiguous);
  store(xLo, lo, at, mask, contiguous);
}

Value Tiles::expand(Value x, int64_t perThread) {
  if (perThread == 1)
    return x;
  return tile::ExpandOp::create(
      b, loc,
      type(cast<RankedTensorType>(x.getType()).getElementType(), perThread), x);
}

Value Tiles::interleave(Value even, Value odd) {
  Type element = cast<RankedTensorType>(even.getType()).getElementType();
  return tile::InterleaveOp::create(b, loc, type(element, 2 * perThread(even)),
                                    even, odd);
}

Value Tiles::slots(Value x, int64_t offset, int64_t count) {
  Type element = cast<RankedTensorType>(x.getType()).getElementType();
  return tile::SlotsOp::create(b, loc, type(element, count), x,
                               b.getI64IntegerAttr(offset));
}

void Tiles::asyncCopy(Value base, Value from, Value dest, Value to,
                      int64_t elements, Value mask, Value read) {
  tile::AsyncCopyOp::create(b, loc, base, from, dest, to,
                            b.getI64IntegerAttr(elements), mask, read);
}

void Tiles::asyncWait() { tile::AsyncWaitOp::create(b, loc); }

Value Tiles::run(Value start, int64_t perThread) {
  if (perThread == 1)
    return start;
  return tile::RunOp::create(b, loc, type(b.getIndexType(), perThread), start);
}

int64_t Tiles::perThread(Value x) {
  return tile::getLayout(x.getType()).getPerThread();
}

Value Tiles::columnSum(Value x, int64_t columns) {
  return tile::ColumnSumOp::create(b, loc, x.getType(), x,
                                   b.getI64IntegerAttr(columns));
}

Value Tiles::convert(Value x, Type element) {
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  auto to = cast<FloatType>(element);
  if (from == to)
    return x;
  if (from.getWidth() == to.getWidth())
    return convert(convert(x, b.getF32Type()), element);
  Type type = like(x, element);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, type, x);
  return arith::TruncFOp::create(b, loc, type, x);
}

Value Tiles::logicalAnd(Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return arith::AndIOp::create(b, loc, x, y);
}

Value Tiles::eq(Value x, Value y) {
  return E.cmpi(arith::CmpIPredicate::eq, x, y);
}

void Tiles::forEachItem(int64_t count,
                        llvm::function_ref<void(Value item, Value live)> body) {
  auto piece = [&](Value first) {
    Value item = first ? E.add(range(), splat(first)) : range();
    body(item, E.ult(item, index(count)));
  };
  if (count <= threads) {
    piece(Value());
    return;
  }
  E.forLoop(E.idx(0), E.idx(count), E.idx(threads), {},
            [&](Value first, ValueRange) {
              piece(first);
              return SmallVector<Value>{};
            });
}

RankedTensorType MatrixTiles::accumulator(int64_t rows, int64_t cols) {
  return RankedTensorType::get(
      {rows, cols}, b.getF32Type(),
      tile::MmaAttr::get(b.getContext(), warpsM, warpsN, columnMajor));
}

RankedTensorType MatrixTiles::operand(unsigned which, int64_t rows,
                                      int64_t cols, Type element) {
  auto parent = tile::MmaAttr::get(b.getContext(), warpsM, warpsN, columnMajor);
  return RankedTensorType::get(
      {rows, cols}, element,
      tile::DotOperandAttr::get(b.getContext(), which, parent));
}

Value MatrixTiles::load(RankedTensorType type, Value base, Value offset,
                        int64_t stride, Value rows, Value cols) {
  return tile::MatrixLoadOp::create(b, loc, type, base, offset, stride,
                                    /*transposed=*/false, /*row_stride=*/1,
                                    rows, cols);
}

Value MatrixTiles::loadTransposed(RankedTensorType type, Value base,
                                  Value offset, int64_t stride,
                                  int64_t rowStride) {
  return tile::MatrixLoadOp::create(b, loc, type, base, offset, stride,
                                    /*transposed=*/true, rowStride, Value(),
                                    Value());
}

void MatrixTiles::store(Value x, Value base, Value offset, int64_t stride,
                        Value rows, Value cols, bool paired, int64_t pieces) {
  tile::MatrixStoreOp::create(b, loc, x, base, offset, stride,
                              /*transposed=*/false, rows, cols, paired, pieces);
}

Value MatrixTiles::dot(Value a, Value bOperand, Value acc) {
  bool split = getElementTypeOrSelf(a.getType()).isF32() ||
               getElementTypeOrSelf(bOperand.getType()).isF32();
  return tile::DotOp::create(b, loc, acc.getType(), a, bOperand, acc,
                             split ? tile::DotPrecision::split_bf16
                                   : tile::DotPrecision::native);
}

Value MatrixTiles::splat(RankedTensorType type, double value) {
  return tile::SplatOp::create(
      b, loc, type,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(value))));
}

Value MatrixTiles::repeat(Value x, RankedTensorType type) {
  if (x.getType() == type)
    return x;
  return tile::RepeatColumnsOp::create(b, loc, type, x);
}

Value MatrixTiles::rowMax(Value x, RankedTensorType rowType) {
  return repeat(
      tile::RowReduceOp::create(b, loc, x.getType(), tile::ReduceKind::max, x),
      rowType);
}

Value MatrixTiles::shiftOf(Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::ONE, m,
      splat(type, -std::numeric_limits<float>::infinity()));
  return arith::SelectOp::create(b, loc, finite, m, splat(type, 0.0));
}

Value MatrixTiles::denominators(Value acc, int64_t column,
                                RankedTensorType rowType) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto indexType = RankedTensorType::get(accType.getShape(), b.getIndexType(),
                                         accType.getEncoding());
  Value cols = tile::MatrixRangeOp::create(b, loc, indexType, 1);
  Value from = tile::SplatOp::create(
      b, loc, indexType, arith::ConstantIndexOp::create(b, loc, column));
  Value isDen =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, cols, from);
  Value den = arith::SelectOp::create(b, loc, isDen, acc, splat(accType, 0.0));
  return repeat(
      tile::RowReduceOp::create(b, loc, accType, tile::ReduceKind::sum, den),
      rowType);
}

Value MatrixTiles::normalizeRows(Value acc, int64_t column,
                                 RankedTensorType rowType) {
  Value den = denominators(acc, column, rowType), zero = splat(rowType, 0.0);
  Value nonzero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, den, zero);
  Value inverse = arith::SelectOp::create(
      b, loc, nonzero, arith::DivFOp::create(b, loc, splat(rowType, 1.0), den),
      zero);
  return arith::MulFOp::create(
      b, loc, acc, repeat(inverse, cast<RankedTensorType>(acc.getType())));
}

Value tokenOffsets(Tiles &t, Value batch, Value T, Value t0, Value j,
                   int64_t heads, Value head, int64_t width) {
  Emitter &E = t.E;
  int64_t R = Tiles::perThread(j);
  return E.add(t.splat(tokenOffset(E, batch, T, t0, heads, head, width), R),
               E.mul(j, t.index(heads * width, R)));
}

Value partnerDim(Tiles &t, const AttentionKernelSpec &spec, Value dim) {
  Emitter &E = t.E;
  if (!spec.rotates())
    return dim;
  int64_t R = Tiles::perThread(dim);
  int64_t r = spec.effectiveRotaryDims();
  Value rotated = E.ult(dim, t.index(r, R));
  if (spec.layout == RotaryLayout::Half) {
    Value first = E.ult(dim, t.index(r / 2, R));
    Value other = E.select(first, E.add(dim, t.index(r / 2, R)),
                           E.sub(dim, t.index(r / 2, R)));
    return E.select(rotated, other, dim);
  }
  Value even = t.eq(E.rem(dim, t.index(2, R)), t.index(0, R));
  Value other =
      E.select(even, E.add(dim, t.index(1, R)), E.sub(dim, t.index(1, R)));
  return E.select(rotated, other, dim);
}

Value rotate(Tiles &t, const AttentionKernelSpec &spec, Value dim, Value x,
             Value partner, Value count) {
  Emitter &E = t.E;
  if (!spec.rotates())
    return x;
  int64_t R = Tiles::perThread(dim);
  Type f32 = t.b.getF32Type(), f64 = t.b.getF64Type();
  int64_t r = spec.effectiveRotaryDims(), half = r / 2;
  Value rotated = E.ult(dim, t.index(r, R));
  // The pair m of each dim, and whether the dim is the pair's first.
  Value m, first;
  if (spec.layout == RotaryLayout::Half) {
    first = E.ult(dim, t.index(half, R));
    m = E.select(first, dim, E.sub(dim, t.index(half, R)));
  } else {
    first = t.eq(E.rem(dim, t.index(2, R)), t.index(0, R));
    m = E.div(dim, t.index(2, R));
  }
  m = E.select(rotated, m, t.index(0, R));
  // theta_m = rate_scale base^(-2m / r), in f64.
  Value mF64 = arith::SIToFPOp::create(
      t.b, t.loc, t.like(m, f64),
      arith::IndexCastOp::create(t.b, t.loc, t.like(m, t.b.getI64Type()), m));
  Value frac =
      E.mul(mF64, t.constant(f64, -2.0 * std::log(spec.rotaryBase) / r, R));
  Value rate = E.mul(t.constant(f64, spec.rateScale, R), E.exp(frac));
  Value alpha = E.mul(
      isa<RankedTensorType>(count.getType()) ? count : t.splat(count, R), rate);
  Value turns = E.floor(E.mul(alpha, t.constant(f64, 1.0 / kTwoPi, R)));
  Value angle =
      t.convert(E.fma(turns, t.constant(f64, -kTwoPi, R), alpha), f32);
  auto afn = arith::FastMathFlags::afn;
  Value cos = E.select(rotated, math::CosOp::create(t.b, t.loc, angle, afn),
                       t.constant(f32, 1.0, R));
  Value sin = E.select(rotated, math::SinOp::create(t.b, t.loc, angle, afn),
                       t.constant(f32, 0.0, R));
  // (x0, x1) -> (x0 cos - x1 sin, x0 sin + x1 cos).
  Value asFirst = E.sub(E.mul(x, cos), E.mul(partner, sin));
  Value asSecond = E.add(E.mul(partner, sin), E.mul(x, cos));
  return E.select(first, asFirst, asSecond);
}

int64_t inclusiveScan(Tiles &t, Value buffer, int64_t n, Value x) {
  Emitter &E = t.E;
  Value j = t.range();
  Value live = E.ult(j, t.index(n));
  t.store(x, buffer, j, live);
  gpu::BarrierOp::create(t.b, t.loc);
  int64_t in = 0;
  for (int64_t r = 1; r < n; r *= 2, in = n - in) {
    Value x = t.load(buffer, E.add(j, t.index(in)), live);
    Value back =
        t.logicalAnd(live, E.cmpi(arith::CmpIPredicate::uge, j, t.index(r)));
    Value y = t.load(buffer, E.sub(E.add(j, t.index(in)), t.index(r)), back);
    t.store(E.add(x, y), buffer, E.add(j, t.index(n - in)), live);
    gpu::BarrierOp::create(t.b, t.loc);
  }
  return in;
}

ProgramIds programIds(OpBuilder &b, Location loc) {
  return {tile::ProgramIdOp::create(b, loc, 0),
          tile::ProgramIdOp::create(b, loc, 1),
          tile::ProgramIdOp::create(b, loc, 2)};
}

gpu::GPUFuncOp
createTileKernel(OpBuilder &b, gpu::GPUModuleOp module,
                 const AttentionKernelSpec &spec, runtime::KernelId kernel,
                 int64_t threads, ArrayRef<int64_t> grid,
                 ArrayRef<Type> workgroup, gpu_detail::KernelArguments &args,
                 int64_t chunk, runtime::Formulation formulation) {
  MLIRContext *ctx = b.getContext();
  ctx->getOrLoadDialect<tile::TileDialect>();
  b.setInsertionPointToEnd(module.getBody());
  args = gpu_detail::kernelArguments(ctx, spec, kernel, chunk, formulation);
  auto fn = gpu::GPUFuncOp::create(
      b, module.getLoc(), runtime::kernelName(kernel),
      b.getFunctionType(args.types, {}), TypeRange(workgroup));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(tile::TileDialect::getKernelAttrName(),
              tile::KernelAttr::get(ctx, threads, grid));
  b.setInsertionPointToStart(&fn.getBody().front());
  return fn;
}

} // namespace sympow::gpu_detail
