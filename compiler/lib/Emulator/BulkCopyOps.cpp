//===- BulkCopyOps.cpp - mbarrier and bulk-copy ops as runtime calls ------===//
//
// sympow_tile.mbarrier_init/arrive/wait and bulk_copy on a thread's scalars
// (after the tile lowering) on the emulator: each becomes one call with the
// addresses of the mbarrier word and of the copy's ends, each with the
// allocation it lies in, as the access checks take them. The runtime keeps
// the mbarriers' phases and transaction counts (ABI.h, docs/Emulator.md).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace sympow::emulator;
namespace abi = sympow::emu::abi;
namespace tile = sympow::tile;

namespace {

Value toI64(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
}

/// The address, allocation base and bytes (i64) of `memref[index]`, and
/// its access flags (the space).
struct Operand {
  Value addr, root, rootBytes, flags;
};

FailureOr<Operand> operand(OpBuilder &b, Operation *op, Value memref,
                           Value index, RuntimeCalls &calls) {
  FailureOr<AccessAddress> a =
      emitAddress(b, op, memref, ValueRange{index}, calls);
  if (failed(a))
    return failure();
  Location loc = op->getLoc();
  return Operand{toI64(b, loc, a->addr), toI64(b, loc, a->rootBase),
                 toI64(b, loc, a->rootBytes),
                 calls.i32(b, loc, a->space << abi::SpaceShift)};
}

LogicalResult lowerMbarrier(Operation *op, int32_t what, Value barriers,
                            Value index, Value value, RuntimeCalls &calls) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<Operand> bar = operand(b, op, barriers, index, calls);
  if (failed(bar))
    return failure();
  calls.call(b, loc, abi::kMbarrier, {},
             {calls.i32(b, loc, what), bar->addr, bar->root, bar->rootBytes,
              bar->flags, value, calls.site(b, op)});
  op->erase();
  return success();
}

LogicalResult lowerBulkCopy(tile::BulkCopyOp op, RuntimeCalls &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  FailureOr<Operand> dst =
      operand(b, op, op.getDest(), op.getDestStart(), calls);
  FailureOr<Operand> src =
      operand(b, op, op.getSource(), op.getSourceStart(), calls);
  FailureOr<Operand> bar =
      operand(b, op, op.getBarriers(), op.getIndex(), calls);
  if (failed(dst) || failed(src) || failed(bar))
    return failure();
  calls.call(b, loc, abi::kBulkCopy, {},
             {dst->addr, dst->root, dst->rootBytes, dst->flags, src->addr,
              src->root, src->rootBytes, src->flags,
              toI64(b, loc, op.getBytes()), bar->addr, bar->root,
              bar->rootBytes, bar->flags, calls.site(b, op)});
  op.erase();
  return success();
}

} // namespace

void sympow::emulator::expandRepeatedBulkCopies(Operation *fn) {
  SmallVector<tile::BulkCopyOp> repeated;
  fn->walk([&](tile::BulkCopyOp op) {
    if (tile::isThreadLevel(op))
      repeated.push_back(op);
  });
  for (tile::BulkCopyOp op : repeated)
    op.expandRepeats();
}

LogicalResult sympow::emulator::lowerBulkCopyOps(Operation *fn,
                                                 RuntimeCalls &calls) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tile::MbarrierInitOp, tile::MbarrierArriveOp, tile::MbarrierWaitOp,
            tile::BulkCopyOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (!tile::isThreadLevel(op))
      return op->emitOpError("runs on a thread's scalars (lower the tile "
                             "kernel first)");
    OpBuilder b(op);
    Location loc = op->getLoc();
    LogicalResult ok = success();
    if (auto init = dyn_cast<tile::MbarrierInitOp>(op)) {
      Value count =
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), init.getCount());
      ok = lowerMbarrier(op, abi::MbarrierInit, init.getBarriers(),
                         init.getIndex(), count, calls);
    } else if (auto arrive = dyn_cast<tile::MbarrierArriveOp>(op)) {
      Value tx = arrive.getExpectTx()
                     ? toI64(b, loc, arrive.getExpectTx())
                     : arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)
                           .getResult();
      ok = lowerMbarrier(op, abi::MbarrierArrive, arrive.getBarriers(),
                         arrive.getIndex(), tx, calls);
    } else if (auto wait = dyn_cast<tile::MbarrierWaitOp>(op)) {
      ok = lowerMbarrier(op, abi::MbarrierWait, wait.getBarriers(),
                         wait.getIndex(), toI64(b, loc, wait.getParity()),
                         calls);
    } else {
      ok = lowerBulkCopy(cast<tile::BulkCopyOp>(op), calls);
    }
    if (failed(ok))
      return failure();
  }
  return success();
}

void sympow::emulator::lowerElected(Operation *fn) {
  SmallVector<tile::ElectedOp> elected;
  fn->walk([&](tile::ElectedOp op) { elected.push_back(op); });
  for (tile::ElectedOp op : elected) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value first = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
        arith::ConstantIndexOp::create(b, loc, 0));
    Operation *branch = op.inlineUnder(b, first);
    branch->setAttr(tile::ElectedOp::getLoweredAttrName(), b.getUnitAttr());
  }
}
