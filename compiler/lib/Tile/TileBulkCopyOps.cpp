//===- TileBulkCopyOps.cpp - mbarrier and bulk-copy ops: verifiers --------===//
//
// TileBulkCopyOps.td: what each op accepts. The barriers are 8-byte words of
// a static workgroup buffer; a bulk copy goes from global to workgroup
// memory in runs of 16 bytes; masks and tiles take one element per thread.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace sympow::tile;

#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileBulkCopyOps.cpp.inc"

namespace {

/// `barriers[index]` names an mbarrier: a static workgroup buffer of i64,
/// the index inside it where it is a constant.
LogicalResult verifyBarrier(Operation *op, Value barriers, Value index) {
  auto type = cast<MemRefType>(barriers.getType());
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type) ||
      !type.getElementType().isInteger(64) || !type.hasStaticShape())
    return op->emitOpError("takes its mbarriers from a static workgroup "
                           "buffer of i64, not ")
           << type;
  APInt at;
  if (matchPattern(index, m_ConstantInt(&at)) &&
      (at.isNegative() || at.getSExtValue() >= type.getNumElements()))
    return op->emitOpError("mbarrier ")
           << at.getSExtValue() << " is outside the " << type.getNumElements()
           << " of " << type;
  return success();
}

/// A mask (and any other tile) of one element per thread.
LogicalResult verifyPerThread(Operation *op, Value tile, StringRef what) {
  if (!tile || !isa<RankedTensorType>(tile.getType()))
    return success();
  BlockedAttr layout = getLayout(tile.getType());
  if (!layout || layout.getPerThread() != 1)
    return op->emitOpError("takes ")
           << what << " as a tile of one element per thread (a blocked "
           << "layout with per_thread = 1), not " << tile.getType();
  return success();
}

} // namespace

LogicalResult MbarrierInitOp::verify() {
  if (getCount() >= (int64_t(1) << 20))
    return emitOpError("count must be below 2^20 (PTX's limit), not ")
           << getCount();
  if (failed(verifyBarrier(*this, getBarriers(), getIndex())))
    return failure();
  return verifyPerThread(*this, getMask(), "its mask");
}

LogicalResult MbarrierArriveOp::verify() {
  APInt bytes;
  if (getExpectTx() && matchPattern(getExpectTx(), m_ConstantInt(&bytes)) &&
      (bytes.isNegative() || bytes.getSExtValue() >= (int64_t(1) << 20)))
    return emitOpError("expect_tx must be 0 to 2^20 - 1 bytes (PTX's "
                       "transaction count), not ")
           << bytes.getSExtValue();
  if (failed(verifyBarrier(*this, getBarriers(), getIndex())))
    return failure();
  return verifyPerThread(*this, getMask(), "its mask");
}

LogicalResult MbarrierWaitOp::verify() {
  APInt parity;
  if (matchPattern(getParity(), m_ConstantInt(&parity)) &&
      parity.getZExtValue() > 1)
    return emitOpError("waits for parity 0 or 1, not ")
           << parity.getSExtValue();
  if (failed(verifyBarrier(*this, getBarriers(), getIndex())))
    return failure();
  return verifyPerThread(*this, getMask(), "its mask");
}

LogicalResult BulkCopyOp::verify() {
  if (failed(verifyCopyBuffers(*this, getSource(), getDest())))
    return failure();
  Type element = cast<MemRefType>(getSource().getType()).getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
    return emitOpError("copies bytes, integers or floats, not ") << element;
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes)) &&
      (bytes.getSExtValue() <= 0 || bytes.getSExtValue() % 16))
    return emitOpError("copies a positive multiple of 16 bytes, not ")
           << bytes.getSExtValue();
  bool tiles = isa<RankedTensorType>(getSourceStart().getType());
  if (getMask() && !tiles)
    return emitOpError("with a mask takes its starts and sizes as tiles "
                       "(one per thread)");
  if (getMask() &&
      getMask().getType() != withElementType(getSourceStart().getType(),
                                             IntegerType::get(getContext(), 1)))
    return emitOpError("takes a mask of its starts' layout, not ")
           << getMask().getType();
  if (failed(verifyBarrier(*this, getBarriers(), getIndex())) ||
      failed(verifyPerThread(*this, getSourceStart(), "its starts and sizes")))
    return failure();
  return success();
}

void BulkCopyOp::expandRepeats() {
  if (getRepeat() == 1)
    return;
  // A loop of single copies, the starts advanced by the strides. LLVM
  // unrolls it (a constant trip count): on sm_90a about 5 instructions a
  // copy in chunk_output, where kept as a loop each took 14 (64-bit
  // uniform adds and compares, the branch).
  OpBuilder b(*this);
  Location loc = getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The starts advance by the strides as the loop's values: one add each
  // a copy.
  SmallVector<Value> starts = {getSourceStart(), getDestStart()};
  auto loop = scf::ForOp::create(b, loc, index(0), index(getRepeat()), index(1),
                                 starts);
  b.setInsertionPointToStart(loop.getBody());
  Value source = loop.getRegionIterArg(0), dest = loop.getRegionIterArg(1);
  BulkCopyOp::create(b, loc, getSource(), source, getDest(), dest, getBytes(),
                     getBarriers(), getIndex(), getMask());
  auto advance = [&](Value start, int64_t stride) -> Value {
    return stride
               ? arith::AddIOp::create(b, loc, start, index(stride)).getResult()
               : start;
  };
  scf::YieldOp::create(b, loc,
                       ValueRange{advance(source, getSourceStride()),
                                  advance(dest, getDestStride())});
  erase();
}

void ElectedOp::build(OpBuilder &b, OperationState &state) {
  Region *body = state.addRegion();
  body->push_back(new Block);
}

LogicalResult ElectedOp::verify() {
  WalkResult tiles = getBody().walk([&](Operation *op) {
    auto isTile = llvm::IsaPred<RankedTensorType>;
    if (llvm::any_of(op->getOperandTypes(), isTile) ||
        llvm::any_of(op->getResultTypes(), isTile)) {
      emitOpError("runs on one thread's scalars: its body takes no tiles, "
                  "but has ")
          << op->getName();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(tiles.wasInterrupted());
}

Operation *ElectedOp::inlineUnder(OpBuilder &b, Value condition) {
  auto branch = scf::IfOp::create(b, getLoc(), condition, /*else=*/false);
  Block *then = branch.thenBlock();
  then->getOperations().splice(then->begin(),
                               getBody().front().getOperations());
  erase();
  return branch;
}
