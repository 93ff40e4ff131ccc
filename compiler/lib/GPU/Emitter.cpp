//===- Emitter.cpp - Small IR-building helpers for kernel generators ------===//

#include "Emitter.h"

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace sympow::gpu_detail {

static bool isFloat(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

Value Emitter::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value Emitter::i32(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value Emitter::f32(double v) { return fconst(b.getF32Type(), v); }
Value Emitter::f64(double v) { return fconst(b.getF64Type(), v); }

Value Emitter::fconst(Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

Value Emitter::add(Value x, Value y) {
  if (isFloat(x))
    return arith::AddFOp::create(b, loc, x, y);
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}

Value Emitter::sub(Value x, Value y) {
  if (isFloat(x))
    return arith::SubFOp::create(b, loc, x, y);
  return b.createOrFold<arith::SubIOp>(loc, x, y);
}

Value Emitter::mul(Value x, Value y) {
  if (isFloat(x))
    return arith::MulFOp::create(b, loc, x, y);
  return b.createOrFold<arith::MulIOp>(loc, x, y);
}

Value Emitter::div(Value x, Value y) {
  if (isFloat(x))
    return arith::DivFOp::create(b, loc, x, y);
  return b.createOrFold<arith::DivUIOp>(loc, x, y);
}

Value Emitter::rem(Value x, Value y) {
  if (isFloat(x))
    return arith::RemFOp::create(b, loc, x, y);
  return b.createOrFold<arith::RemUIOp>(loc, x, y);
}

Value Emitter::min(Value x, Value y) {
  if (isFloat(x))
    return arith::MinimumFOp::create(b, loc, x, y);
  return b.createOrFold<arith::MinUIOp>(loc, x, y);
}

Value Emitter::max(Value x, Value y) {
  if (isFloat(x))
    return arith::MaximumFOp::create(b, loc, x, y);
  return b.createOrFold<arith::MaxUIOp>(loc, x, y);
}

Value Emitter::fma(Value x, Value y, Value z) {
  return math::FmaOp::create(b, loc, x, y, z);
}

Value Emitter::neg(Value x) { return arith::NegFOp::create(b, loc, x); }

Value Emitter::select(Value c, Value x, Value y) {
  return b.createOrFold<arith::SelectOp>(loc, c, x, y);
}

Value Emitter::cmpi(arith::CmpIPredicate pred, Value x, Value y) {
  return b.createOrFold<arith::CmpIOp>(loc, pred, x, y);
}

Value Emitter::cmpf(arith::CmpFPredicate pred, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, pred, x, y);
}

Value Emitter::exp(Value x) { return math::ExpOp::create(b, loc, x); }
Value Emitter::log(Value x) { return math::LogOp::create(b, loc, x); }
Value Emitter::expApprox(Value x) {
  return math::ExpOp::create(b, loc, x, arith::FastMathFlags::afn);
}
Value Emitter::logApprox(Value x) {
  return math::LogOp::create(b, loc, x, arith::FastMathFlags::afn);
}
Value Emitter::exp2Approx(Value x) {
  return math::Exp2Op::create(b, loc, x, arith::FastMathFlags::afn);
}
Value Emitter::log2Approx(Value x) {
  return math::Log2Op::create(b, loc, x, arith::FastMathFlags::afn);
}
Value Emitter::exp2Flush(Value x) {
  return tile::Exp2FtzOp::create(b, loc, x.getType(), x);
}
Value Emitter::log2Flush(Value x) {
  return tile::Log2FtzOp::create(b, loc, x.getType(), x);
}
Value Emitter::abs(Value x) { return math::AbsFOp::create(b, loc, x); }
Value Emitter::cos(Value x) { return math::CosOp::create(b, loc, x); }
Value Emitter::sin(Value x) { return math::SinOp::create(b, loc, x); }
Value Emitter::floor(Value x) { return math::FloorOp::create(b, loc, x); }

Value Emitter::convert(Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = cast<FloatType>(from);
  auto toF = cast<FloatType>(to);
  // bf16 <-> f16 have equal widths: go through f32.
  if (fromF.getWidth() == toF.getWidth())
    return convert(convert(x, b.getF32Type()), to);
  if (fromF.getWidth() < toF.getWidth())
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

Value Emitter::power(Value x, int64_t n) {
  assert(n >= 1 && "a positive power");
  Value result;
  for (; n > 0; n /= 2) {
    if (n % 2)
      result = result ? mul(result, x) : x;
    if (n > 1)
      x = mul(x, x);
  }
  return result;
}

Value Emitter::indexToF64(Value x) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i);
}

Value Emitter::indexCast(Value x, Type to) {
  return arith::IndexCastOp::create(b, loc, to, x);
}

Value Emitter::load(Value mem, ValueRange indices) {
  return memref::LoadOp::create(b, loc, mem, indices);
}

Value Emitter::loadVector(Value mem, Value index, int64_t width) {
  Type element = cast<MemRefType>(mem.getType()).getElementType();
  auto type = VectorType::get({width}, element);
  return vector::LoadOp::create(
      b, loc, type, mem, ValueRange{index}, /*nontemporal=*/false,
      llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
}

void Emitter::store(Value v, Value mem, ValueRange indices) {
  memref::StoreOp::create(b, loc, v, mem, indices);
}

SmallVector<Value> Emitter::forLoop(Value lb, Value ub, Value step,
                                    ValueRange inits, LoopBody body) {
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(b);
  Block *block = loop.getBody();
  // With no iter_args the builder already added an empty scf.yield.
  if (!block->empty())
    block->back().erase();
  b.setInsertionPointToEnd(block);
  SmallVector<Value> yielded =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  scf::YieldOp::create(b, loc, yielded);
  return SmallVector<Value>(loop.getResults());
}

void Emitter::ifThen(Value cond, llvm::function_ref<void()> thenBody) {
  auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
}

Value Emitter::ifElse(Value cond, Type type,
                      llvm::function_ref<Value()> thenBody,
                      llvm::function_ref<Value()> elseBody) {
  return ifElse(
      cond, TypeRange{type}, [&] { return SmallVector<Value>{thenBody()}; },
      [&] { return SmallVector<Value>{elseBody()}; })[0];
}

SmallVector<Value> Emitter::ifElse(Value cond, TypeRange types, Branch thenBody,
                                   Branch elseBody) {
  auto op = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(op.thenBlock());
  scf::YieldOp::create(b, loc, thenBody());
  b.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(b, loc, elseBody());
  return SmallVector<Value>(op.getResults());
}

} // namespace sympow::gpu_detail
