//===- FlushMath.cpp - exp2_ftz and log2_ftz for the CPU ------------------===//
//
// The flushing base-2 exp and log (sympow_tile.exp2_ftz, log2_ftz; on the
// GPU ex2.approx.ftz.f32 and lg2.approx.ftz.f32) as math.exp2 and
// math.log2 with the hardware's flushes around them. Runs after the
// counts, which take each op as one SFU operation, as on the GPU.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace {

/// The smallest normal f32, 2^-126, as `like`'s type (scalar or vector).
Value smallestNormal(OpBuilder &b, Location loc, Type like) {
  auto value = b.getF32FloatAttr(0x1p-126f);
  if (auto vector = dyn_cast<VectorType>(like))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vector, value.getValue()));
  return arith::ConstantOp::create(b, loc, value);
}

Value zero(OpBuilder &b, Location loc, Type like) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(like));
}

} // namespace

void sympow::emulator::lowerFlushMath(Operation *fn) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (sympow::tile::isFlushMath(op))
      ops.push_back(op);
  });
  auto afn = arith::FastMathFlags::afn;
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type type = x.getType();
    Value result;
    if (isa<sympow::tile::Exp2FtzOp>(op)) {
      // 2^x of a subnormal x is 1 either way; a subnormal result is +0.
      Value r = math::Exp2Op::create(b, loc, x, afn);
      Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r,
                                         smallestNormal(b, loc, type));
      result = arith::SelectOp::create(b, loc, tiny, zero(b, loc, type), r);
    } else {
      // A subnormal x is read as 0 of its sign: log2 gives -inf.
      Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                         math::AbsFOp::create(b, loc, x),
                                         smallestNormal(b, loc, type));
      Value flushed = arith::SelectOp::create(
          b, loc, tiny, math::CopySignOp::create(b, loc, zero(b, loc, type), x),
          x);
      result = math::Log2Op::create(b, loc, flushed, afn);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}
