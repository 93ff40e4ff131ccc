//===- TileWarpgroups.cpp - sympow_tile.warpgroups: what its body holds ---===//
//
// TileOps.td: a region that is a tile program over some of the program's
// warpgroups. Its tiles' thread counts are checked with the kernel's
// (TileDialect.cpp); here, that the body neither captures tiles spread over
// other threads nor runs an op that waits for threads outside it at
// barriers of its own.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace sympow::tile;

void WarpgroupsOp::build(OpBuilder &b, OperationState &state, int64_t first,
                         int64_t count) {
  state.addAttribute(getFirstAttrName(state.name), b.getI64IntegerAttr(first));
  state.addAttribute(getCountAttrName(state.name), b.getI64IntegerAttr(count));
  Region *body = state.addRegion();
  body->push_back(new Block);
}

/// What in the body would wait for, or run on, threads outside it (a
/// gpu.barrier is the program's, which the other regions reach at theirs).
static const char *programWide(Operation *op) {
  if (isa<ColumnSumOp>(op))
    return "a column_sum (it passes barriers)";
  if (isa<LastArrivalOp>(op))
    return "a last_arrival (it passes barriers)";
  if (auto reduce = dyn_cast<RowReduceOp>(op))
    if (cast<MmaAttr>(reduce.getType().getEncoding()).getWarpsN() > 1)
      return "a row_reduce over several warp columns (it passes barriers)";
  if (isa<ElectedOp>(op))
    return "an elected region (one thread of the whole program)";
  if (isa<WarpgroupsOp>(op))
    return "another warpgroups region";
  return nullptr;
}

LogicalResult WarpgroupsOp::verify() {
  Region &body = getBody();
  WalkResult walk = body.walk([&](Operation *op) {
    if (const char *what = programWide(op)) {
      op->emitOpError("inside a warpgroups region: ")
          << what << " would wait for or run on threads outside it";
      return WalkResult::interrupt();
    }
    for (Value operand : op->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()) ||
          body.isAncestor(operand.getParentRegion()))
        continue;
      op->emitOpError("takes a tile from outside its warpgroups region (")
          << operand.getType()
          << "): tiles outside are spread over other threads; hand values "
             "over in workgroup memory";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
