//===- BulkCopiesToGPU.cpp - mbarrier and bulk-copy ops per thread --------===//
//
// In a tile kernel the mbarrier ops and bulk_copy take a mask tile (and the
// copies their starts and sizes as tiles, one element per thread): each
// thread runs the op on its own scalars where its mask holds. The thread
// level ops are what each target lowers (--sympow-lower-bulk-copies, the
// emulator).
//
//===----------------------------------------------------------------------===//

#include "BulkCopies.h"
#include "MatrixTiles.h"

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace sympow::tile {
namespace {

/// The op on the thread's operands (`mask` dropped), where the mask holds.
template <typename Op> struct PerThreadLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename Op::Adaptor;
  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value mask = adaptor.getMask();
    SmallVector<Value> operands;
    for (Value v : adaptor.getOperands())
      if (v != mask)
        operands.push_back(v);
    auto issue = [&](OpBuilder &b, Location loc) {
      OperationState state(loc, op->getName());
      state.addOperands(operands);
      for (NamedAttribute a : op->getAttrs()) {
        // The mask is the last operand group: none on the thread.
        if (auto segments = dyn_cast<DenseI32ArrayAttr>(a.getValue());
            segments && a.getName() == "operandSegmentSizes") {
          SmallVector<int32_t> sizes(segments.asArrayRef());
          sizes.back() = 0;
          state.addAttribute(a.getName(), b.getDenseI32ArrayAttr(sizes));
          continue;
        }
        state.addAttribute(a.getName(), a.getValue());
      }
      b.create(state);
    };
    if (mask)
      emitIf(rewriter, op.getLoc(), mask, issue);
    else
      issue(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateBulkCopyLowering(const TypeConverter &converter,
                              RewritePatternSet &patterns,
                              ConversionTarget &target) {
  // One thread's region: its scalars are every thread's already.
  target.addLegalOp<ElectedOp>();
  target.addDynamicallyLegalOp<MbarrierInitOp, MbarrierArriveOp, MbarrierWaitOp,
                               BulkCopyOp>(
      [](Operation *op) { return isThreadLevel(op); });
  patterns.add<
      PerThreadLowering<MbarrierInitOp>, PerThreadLowering<MbarrierArriveOp>,
      PerThreadLowering<MbarrierWaitOp>, PerThreadLowering<BulkCopyOp>>(
      converter, patterns.getContext());
}

} // namespace sympow::tile
