//===- TileDotSplit.cpp - Split-precision dots as three bf16 dots ---------===//
//
// f32 accuracy on bf16 tensor cores, as one rewrite on tiles: x = hi + lo
// with hi = bf16(x), lo = bf16(x - hi) (16 significant bits of x), and
// a b ~ lo_a hi_b + hi_a lo_b + hi_a hi_b (lo_a lo_b, 2^-16 relative, is
// dropped). The small terms go first so that they are added while the
// accumulator is still small. A bf16 operand is its own hi (lo = 0): with
// one, the dot is lo_a b + hi_a b (or a lo_b + a hi_b). Target patterns
// only ever see bf16 dots.
//
//===----------------------------------------------------------------------===//

#include "MatrixTiles.h"

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;

namespace sympow::tile {
namespace {

struct SplitDot : OpRewritePattern<DotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getPrecision() != DotPrecision::split_bf16)
      return failure();
    Location loc = op.getLoc();
    auto splitIfF32 = [&](Value x) -> std::pair<Value, Value> {
      if (!getElementTypeOrSelf(x.getType()).isF32())
        return {x, Value()};
      return splitBf16(rewriter, loc, x);
    };
    auto [aHi, aLo] = splitIfF32(op.getA());
    auto [bHi, bLo] = splitIfF32(op.getB());
    Value acc = op.getAcc();
    for (auto [a, b] : {std::pair{aLo, bHi}, {aHi, bLo}, {aHi, bHi}})
      if (a && b)
        acc = DotOp::create(rewriter, loc, acc.getType(), a, b, acc,
                            DotPrecision::native);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

std::pair<Value, Value> splitBf16(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Type half = type.clone(b.getBF16Type());
  Value hi = arith::TruncFOp::create(b, loc, half, x);
  Value rest =
      arith::SubFOp::create(b, loc, x, arith::ExtFOp::create(b, loc, type, hi));
  Value lo = arith::TruncFOp::create(b, loc, half, rest);
  return {hi, lo};
}

void expandSplitDots(gpu::GPUFuncOp fn) {
  RewritePatternSet patterns(fn.getContext());
  patterns.add<SplitDot>(fn.getContext());
  walkAndApplyPatterns(fn, std::move(patterns));
}

} // namespace sympow::tile
