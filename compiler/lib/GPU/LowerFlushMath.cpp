//===- LowerFlushMath.cpp - exp2_ftz and log2_ftz to NVPTX intrinsics -----===//
//
// `sympow_tile.exp2_ftz` and `log2_ftz` on a thread's f32 scalars or
// vectors become the NVPTX intrinsics that are ex2.approx.ftz.f32 and
// lg2.approx.ftz.f32: one MUFU each (docs/TileIR.md, "The hardware's exp
// and log").
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLOWERFLUSHMATH
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

/// `Op` on f32 or a vector of f32 as `intrinsic` per element (a vector
/// through its flattened elements).
template <typename Op> struct FlushMathToIntrinsic : OpRewritePattern<Op> {
  FlushMathToIntrinsic(MLIRContext *ctx, StringRef intrinsic)
      : OpRewritePattern<Op>(ctx), intrinsic(intrinsic) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto call = [&](Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, f32,
                                           rewriter.getStringAttr(intrinsic),
                                           ValueRange{x})
          .getResult(0);
    };
    Value x = op.getX();
    if (x.getType() == f32) {
      rewriter.replaceOp(op, call(x));
      return success();
    }
    auto vector = dyn_cast<VectorType>(x.getType());
    if (!vector)
      return rewriter.notifyMatchFailure(op, "a tile: lower the tiles first");
    // Element by element at static positions: extract and insert on n-D
    // vectors are what the LLVM lowering takes (no shape_cast).
    Value result =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(vector));
    SmallVector<int64_t> strides = computeStrides(vector.getShape());
    for (int64_t i = 0; i < vector.getNumElements(); ++i) {
      SmallVector<int64_t> position = delinearize(i, strides);
      Value element = vector::ExtractOp::create(rewriter, loc, x, position);
      result = vector::InsertOp::create(rewriter, loc, call(element), result,
                                        position);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  std::string intrinsic;
};

struct LowerFlushMath : impl::SympowLowerFlushMathBase<LowerFlushMath> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FlushMathToIntrinsic<tile::Exp2FtzOp>>(
        ctx, "llvm.nvvm.ex2.approx.ftz.f32");
    patterns.add<FlushMathToIntrinsic<tile::Log2FtzOp>>(
        ctx, "llvm.nvvm.lg2.approx.ftz.f");
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (!tile::isFlushMath(op))
        return WalkResult::advance();
      op->emitOpError("is lowered on f32 scalars and vectors only (lower "
                      "the tile kernel first)");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace sympow
