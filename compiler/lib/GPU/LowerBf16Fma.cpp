//===- LowerBf16Fma.cpp - bf16 fma as the LLVM intrinsic ------------------===//
//
// `math.fma` on bf16 scalars or vectors becomes `llvm.intr.fma`, which NVPTX
// selects as fma.rn.bf16x2 (two elements a HFMA2.BF16). Upstream
// convert-gpu-to-nvvm lowers math.fma to libdevice's __nv_fmaf, extending
// bf16 to f32 and rounding back: the same value (the f32 fma of bf16
// operands rounds once to bf16) at about four instructions an element.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLOWERBF16FMA
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

struct Bf16FmaToIntrinsic : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isBF16())
      return rewriter.notifyMatchFailure(op, "not bf16");
    if (!isa<FloatType, VectorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "a tile: lower the tiles first");
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
    return success();
  }
};

struct LowerBf16Fma : impl::SympowLowerBf16FmaBase<LowerBf16Fma> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Bf16FmaToIntrinsic>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
} // namespace sympow
