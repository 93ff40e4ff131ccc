//===- GpuOps.cpp - Ids, barriers and warp collectives as runtime calls ---===//

#include "Lowering.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace sympow::emulator;
namespace abi = sympow::emu::abi;

// An alloca in a loop would grow the fiber's stack: once, at the entry.
Value sympow::emulator::scratch(Operation *fn, VectorType type) {
  auto body = cast<FunctionOpInterface>(fn);
  OpBuilder b(fn->getContext());
  b.setInsertionPointToStart(&body.getFunctionBody().front());
  auto memrefType =
      MemRefType::get({type.getNumElements()}, type.getElementType());
  return memref::AllocaOp::create(b, fn->getLoc(), memrefType);
}

Value sympow::emulator::pointerOf(OpBuilder &b, Location loc, Value memref) {
  Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), p);
}

void sympow::emulator::storeFlat(OpBuilder &b, Location loc, Value v,
                                 Value buffer, RuntimeCalls &calls) {
  auto type = cast<VectorType>(v.getType());
  auto flat = VectorType::get({type.getNumElements()}, type.getElementType());
  Value f = vector::ShapeCastOp::create(b, loc, flat, v);
  vector::StoreOp::create(b, loc, f, buffer,
                          ValueRange{calls.index(b, loc, 0)});
}

Value sympow::emulator::loadFlat(OpBuilder &b, Location loc, VectorType type,
                                 Value buffer, RuntimeCalls &calls) {
  auto flat = VectorType::get({type.getNumElements()}, type.getElementType());
  Value f = vector::LoadOp::create(b, loc, flat, buffer,
                                   ValueRange{calls.index(b, loc, 0)});
  return vector::ShapeCastOp::create(b, loc, type, f);
}

namespace {

Value query(OpBuilder &b, Location loc, int32_t what, RuntimeCalls &calls) {
  return calls
      .call(b, loc, abi::kQuery, {b.getIndexType()}, {calls.i32(b, loc, what)})
      .getResult(0);
}

int32_t dim(gpu::Dimension d) {
  return d == gpu::Dimension::x ? 0 : d == gpu::Dimension::y ? 1 : 2;
}

int32_t mmaType(Type t) {
  if (t.isF16())
    return abi::F16;
  if (t.isBF16())
    return abi::BF16;
  if (t.isF32())
    return abi::F32;
  return 0;
}

LogicalResult lowerShuffle(gpu::ShuffleOp op, RuntimeCalls &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type type = op.getValue().getType();
  unsigned bits = type.isIndex() ? 64
                  : isa<VectorType>(type)
                      ? cast<VectorType>(type).getNumElements() *
                            cast<VectorType>(type).getElementTypeBitWidth()
                      : type.getIntOrFloatBitWidth();
  if (bits > 64 ||
      (isa<VectorType>(type) && cast<VectorType>(type).getRank() != 1))
    return op.emitError("the emulator shuffles values of at most 64 bits, "
                        "not ")
           << type;
  auto intType = b.getIntegerType(bits);
  Value v = op.getValue();
  if (type.isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  else if (type != intType)
    v = arith::BitcastOp::create(b, loc, intType, v);
  if (bits < 64)
    v = arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  int32_t mode = abi::Xor;
  switch (op.getMode()) {
  case gpu::ShuffleMode::XOR:
    mode = abi::Xor;
    break;
  case gpu::ShuffleMode::UP:
    mode = abi::Up;
    break;
  case gpu::ShuffleMode::DOWN:
    mode = abi::Down;
    break;
  case gpu::ShuffleMode::IDX:
    mode = abi::Idx;
    break;
  }
  Value r = calls
                .call(b, loc, abi::kShuffle, {b.getI64Type()},
                      {v, op.getOffset(), op.getWidth(),
                       calls.i32(b, loc, mode), calls.site(b, op)})
                .getResult(0);
  if (bits < 64)
    r = arith::TruncIOp::create(b, loc, intType, r);
  if (type.isIndex())
    r = arith::IndexCastOp::create(b, loc, type, r);
  else if (type != intType)
    r = arith::BitcastOp::create(b, loc, type, r);
  Value valid =
      calls.call(b, loc, abi::kShuffleValid, {b.getI32Type()}, {}).getResult(0);
  valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, valid,
                                calls.i32(b, loc, 0));
  op.replaceAllUsesWith(ValueRange{r, valid});
  op.erase();
  return success();
}

LogicalResult lowerLdMatrix(Operation *fn, nvgpu::LdMatrixOp op,
                            RuntimeCalls &calls) {
  auto type = cast<VectorType>(op.getRes().getType());
  int64_t eb = elementBytes(type.getElementType());
  if (eb != 2 && eb != 4)
    return op.emitError("the emulator's ldmatrix takes 16- or 32-bit "
                        "elements, not ")
           << type.getElementType();
  Value out = scratch(fn, type);
  OpBuilder b(op);
  Location loc = op.getLoc();
  FailureOr<AccessAddress> a =
      emitAddress(b, op, op.getSrcMemref(), op.getIndices(), calls);
  if (failed(a))
    return failure();
  auto i64 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult();
  };
  calls.call(b, loc, abi::kLdMatrix, {},
             {i64(a->addr), i64(a->rootBase), i64(a->rootBytes),
              calls.i32(b, loc, a->space << abi::SpaceShift),
              calls.i32(b, loc, op.getNumTiles()),
              calls.i32(b, loc, op.getTranspose() ? 1 : 0),
              calls.i32(b, loc, eb), pointerOf(b, loc, out),
              calls.site(b, op)});
  op.replaceAllUsesWith(loadFlat(b, loc, type, out, calls));
  op.erase();
  return success();
}

LogicalResult lowerMma(Operation *fn, nvgpu::MmaSyncOp op,
                       RuntimeCalls &calls) {
  auto aType = cast<VectorType>(op.getMatrixA().getType());
  auto cType = cast<VectorType>(op.getMatrixC().getType());
  int32_t ab = mmaType(aType.getElementType());
  int32_t c = mmaType(cType.getElementType());
  if (!ab || !c)
    return op.emitError("the emulator's mma.sync takes f16, bf16 or tf32 "
                        "operands and f16 or f32 accumulators, not ")
           << aType << " and " << cType;
  if (ab == abi::F32)
    ab = abi::TF32;
  std::array<int64_t, 3> shape = op.getMmaShapeAsArray();
  Value aBuf = scratch(fn, aType);
  Value bBuf = scratch(fn, cast<VectorType>(op.getMatrixB().getType()));
  Value cBuf = scratch(fn, cType);
  Value dBuf = scratch(fn, cType);
  OpBuilder b(op);
  Location loc = op.getLoc();
  storeFlat(b, loc, op.getMatrixA(), aBuf, calls);
  storeFlat(b, loc, op.getMatrixB(), bBuf, calls);
  storeFlat(b, loc, op.getMatrixC(), cBuf, calls);
  calls.call(b, loc, abi::kMma, {},
             {calls.i32(b, loc, shape[0]), calls.i32(b, loc, shape[1]),
              calls.i32(b, loc, shape[2]), calls.i32(b, loc, ab),
              calls.i32(b, loc, c), pointerOf(b, loc, aBuf),
              pointerOf(b, loc, bBuf), pointerOf(b, loc, cBuf),
              pointerOf(b, loc, dBuf), calls.site(b, op)});
  op.replaceAllUsesWith(loadFlat(b, loc, cType, dBuf, calls));
  op.erase();
  return success();
}

/// cp.async: tokens may only feed create_group, and groups only wait ops,
/// so each becomes a plain call (no token crosses control flow).
LogicalResult lowerAsyncCopies(Operation *fn, RuntimeCalls &calls) {
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  SmallVector<nvgpu::DeviceAsyncCreateGroupOp> groups;
  SmallVector<nvgpu::DeviceAsyncWaitOp> waits;
  fn->walk([&](Operation *op) {
    if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(c);
    else if (auto g = dyn_cast<nvgpu::DeviceAsyncCreateGroupOp>(op))
      groups.push_back(g);
    else if (auto w = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op))
      waits.push_back(w);
  });
  for (auto c : copies)
    for (Operation *user : c->getUsers())
      if (!isa<nvgpu::DeviceAsyncCreateGroupOp>(user))
        return c.emitError("the emulator needs cp.async tokens to go straight "
                           "to nvgpu.device_async_create_group, not to '")
               << user->getName() << "'";
  for (auto g : groups)
    for (Operation *user : g->getUsers())
      if (!isa<nvgpu::DeviceAsyncWaitOp>(user))
        return g.emitError("the emulator needs cp.async group tokens to go "
                           "straight to nvgpu.device_async_wait, not to '")
               << user->getName() << "'";
  for (auto w : waits) {
    OpBuilder b(w);
    calls.call(b, w.getLoc(), abi::kAsyncWait, {},
               {calls.i32(b, w.getLoc(), w.getNumGroups().value_or(0))});
    w.erase();
  }
  for (auto g : groups) {
    OpBuilder b(g);
    calls.call(b, g.getLoc(), abi::kAsyncCommit, {b.getI32Type()}, {});
    g.erase();
  }
  for (auto c : copies) {
    OpBuilder b(c);
    Location loc = c.getLoc();
    FailureOr<AccessAddress> dst =
        emitAddress(b, c, c.getDst(), c.getDstIndices(), calls);
    FailureOr<AccessAddress> src =
        emitAddress(b, c, c.getSrc(), c.getSrcIndices(), calls);
    if (failed(dst) || failed(src))
      return failure();
    int64_t eb = elementBytes(c.getDst().getType().getElementType());
    int64_t bytes = c.getDstElements().getZExtValue() * eb;
    Value srcBytes = calls.index(b, loc, -1);
    if (Value n = c.getSrcElements())
      srcBytes = arith::MulIOp::create(b, loc, n, calls.index(b, loc, eb));
    auto i64 = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult();
    };
    calls.call(b, loc, abi::kAsyncCopy, {b.getI32Type()},
               {i64(dst->addr), i64(dst->rootBase), i64(dst->rootBytes),
                calls.i32(b, loc, dst->space << abi::SpaceShift),
                i64(src->addr), i64(src->rootBase), i64(src->rootBytes),
                calls.i32(b, loc, src->space << abi::SpaceShift),
                i64(calls.index(b, loc, bytes)), i64(srcBytes),
                calls.site(b, c)});
    c.erase();
  }
  return success();
}

} // namespace

LogicalResult sympow::emulator::lowerGpuOps(Operation *fn,
                                            RuntimeCalls &calls) {
  if (failed(lowerAsyncCopies(fn, calls)))
    return failure();
  SmallVector<Operation *> ops;
  fn->walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            gpu::GlobalIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
            gpu::NumSubgroupsOp, gpu::SubgroupSizeOp, gpu::BarrierOp,
            gpu::ShuffleOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value replacement;
    if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
      replacement =
          query(b, loc, abi::ThreadIdX + dim(o.getDimension()), calls);
    else if (auto o = dyn_cast<gpu::BlockIdOp>(op))
      replacement = query(b, loc, abi::BlockIdX + dim(o.getDimension()), calls);
    else if (auto o = dyn_cast<gpu::BlockDimOp>(op))
      replacement =
          query(b, loc, abi::BlockDimX + dim(o.getDimension()), calls);
    else if (auto o = dyn_cast<gpu::GridDimOp>(op))
      replacement = query(b, loc, abi::GridDimX + dim(o.getDimension()), calls);
    else if (auto o = dyn_cast<gpu::GlobalIdOp>(op)) {
      int32_t d = dim(o.getDimension());
      Value block = query(b, loc, abi::BlockIdX + d, calls);
      Value size = query(b, loc, abi::BlockDimX + d, calls);
      Value thread = query(b, loc, abi::ThreadIdX + d, calls);
      replacement = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block, size), thread);
    } else if (isa<gpu::LaneIdOp>(op))
      replacement = query(b, loc, abi::LaneId, calls);
    else if (isa<gpu::SubgroupIdOp>(op))
      replacement = query(b, loc, abi::WarpId, calls);
    else if (isa<gpu::NumSubgroupsOp>(op))
      replacement = query(b, loc, abi::NumWarps, calls);
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = query(b, loc, abi::WarpSize, calls);
    else if (isa<gpu::BarrierOp>(op)) {
      bool anySite = op->hasAttr(tile::WarpgroupsOp::getBarrierAttrName());
      calls.call(b, loc, abi::kBarrier, {},
                 {calls.site(b, op), calls.i32(b, loc, anySite)});
      op->erase();
      continue;
    } else if (auto o = dyn_cast<gpu::ShuffleOp>(op)) {
      if (failed(lowerShuffle(o, calls)))
        return failure();
      continue;
    } else if (auto o = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      if (failed(lowerLdMatrix(fn, o, calls)))
        return failure();
      continue;
    } else if (auto o = dyn_cast<nvgpu::MmaSyncOp>(op)) {
      if (failed(lowerMma(fn, o, calls)))
        return failure();
      continue;
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  return success();
}
