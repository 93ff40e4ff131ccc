//===- WarpgroupOps.cpp - Warpgroup MMA ops as runtime calls --------------===//
//
// sympow_tile.warpgroup_* and async_proxy_fence on the emulator: the
// descriptor from the buffer's offset in the block's workgroup memory (its
// window address), the MMA as the runtime's warpgroup collective, the
// fences, commit and wait as per-thread calls, and the wait's results
// through __sympow_emu_wgmma_result (ABI.h says what each does).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace sympow::emulator;
namespace abi = sympow::emu::abi;
namespace tile = sympow::tile;

namespace {

void sync(OpBuilder &b, Operation *op, int32_t what, int64_t pending,
          RuntimeCalls &calls) {
  Location loc = op->getLoc();
  calls.call(
      b, loc, abi::kWgmmaSync, {},
      {calls.i32(b, loc, what), calls.i32(b, loc, pending), calls.site(b, op)});
}

LogicalResult lowerDescriptor(Operation *fn, tile::WarpgroupDescriptorOp op,
                              RuntimeCalls &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  FailureOr<AccessAddress> a =
      emitAddress(b, op, op.getBuffer(), ValueRange{op.getOffset()}, calls);
  if (failed(a))
    return failure();
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), a->addr);
  Value window = calls
                     .call(b, loc, abi::kWgmmaStart, {b.getI64Type()},
                           {address, calls.site(b, op)})
                     .getResult(0);
  op.replaceAllUsesWith(op.encode(b, window));
  op.erase();
  return success();
}

void lowerMma(Operation *fn, tile::WarpgroupMmaOp op, RuntimeCalls &calls) {
  auto type = cast<VectorType>(op.getType());
  Value c = scratch(fn, type), d = scratch(fn, type);
  OpBuilder b(op);
  Location loc = op.getLoc();
  storeFlat(b, loc, op.getAcc(), c, calls);
  int32_t flags = (op.getTransposeA() ? abi::TransposeA : 0) |
                  (op.getTransposeB() ? abi::TransposeB : 0) |
                  (op.getAccumulate() ? abi::Accumulate : 0) |
                  (op.hasRegisterA() ? abi::RegisterA : 0);
  Value descA = op.getA(),
        a = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  if (op.hasRegisterA()) {
    auto type = cast<VectorType>(op.getA().getType());
    Value buffer = scratch(fn, type);
    storeFlat(b, loc, op.getA(), buffer, calls);
    a = pointerOf(b, loc, buffer);
    descA = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  }
  calls.call(
      b, loc, abi::kWgmma, {},
      {descA, op.getB(), calls.i32(b, loc, op.getN()),
       calls.i32(b, loc, op.getInputType().isBF16() ? abi::BF16 : abi::F16),
       calls.i32(b, loc, flags), a, pointerOf(b, loc, c), pointerOf(b, loc, d),
       calls.site(b, op)});
  op.replaceAllUsesWith(loadFlat(b, loc, type, d, calls));
  op.erase();
}

void lowerWait(Operation *fn, tile::WarpgroupWaitOp op, RuntimeCalls &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  sync(b, op, abi::Wait, op.getPending(), calls);
  SmallVector<Value> results;
  for (Value acc : op.getAccs()) {
    auto type = cast<VectorType>(acc.getType());
    Value buffer = scratch(fn, type);
    storeFlat(b, loc, acc, buffer, calls);
    calls.call(b, loc, abi::kWgmmaResult, {},
               {pointerOf(b, loc, buffer),
                calls.i32(b, loc, type.getNumElements()), calls.site(b, op)});
    results.push_back(loadFlat(b, loc, type, buffer, calls));
  }
  op.replaceAllUsesWith(results);
  op.erase();
}

} // namespace

LogicalResult sympow::emulator::lowerWarpgroupOps(Operation *fn,
                                                  RuntimeCalls &calls) {
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<tile::WarpgroupDescriptorOp, tile::WarpgroupFenceOp,
            tile::AsyncProxyFenceOp, tile::WarpgroupMmaOp,
            tile::WarpgroupCommitOp, tile::WarpgroupWaitOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (!tile::isThreadLevel(op))
      return op->emitOpError("runs on a thread's vectors (lower the tile "
                             "kernel first)");
    if (auto d = dyn_cast<tile::WarpgroupDescriptorOp>(op)) {
      if (failed(lowerDescriptor(fn, d, calls)))
        return failure();
    } else if (auto m = dyn_cast<tile::WarpgroupMmaOp>(op)) {
      lowerMma(fn, m, calls);
    } else if (auto w = dyn_cast<tile::WarpgroupWaitOp>(op)) {
      lowerWait(fn, w, calls);
    } else {
      OpBuilder b(op);
      sync(b, op,
           isa<tile::WarpgroupFenceOp>(op)    ? abi::Fence
           : isa<tile::WarpgroupCommitOp>(op) ? abi::Commit
                                              : abi::ProxyFence,
           0, calls);
      op->erase();
    }
  }
  return success();
}
