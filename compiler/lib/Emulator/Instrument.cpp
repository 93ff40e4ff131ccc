//===- Instrument.cpp - Bounds and race checks before memory accesses -----===//
//
// Before each access the lowered code calls __sympow_emu_access with the
// address, the byte count, and the base and extent of the allocation the
// accessed memref derives from. Checking against the allocation (not the
// view's shape) is what CUDA memory is: an index past a view's dimension
// that stays inside the buffer is not a fault on the GPU either.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace sympow::emulator;
namespace abi = sympow::emu::abi;

namespace {

int32_t spaceOf(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return abi::Global;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return abi::Global;
    case gpu::AddressSpace::Workgroup:
      return abi::Workgroup;
    case gpu::AddressSpace::Private:
      return abi::Private;
    }
  }
  if (auto intSpace = dyn_cast<IntegerAttr>(space)) {
    switch (intSpace.getInt()) {
    case 0:
    case 1:
      return abi::Global;
    case 3:
      return abi::Workgroup;
    case 5:
      return abi::Private;
    }
  }
  return abi::Unknown;
}

} // namespace

int64_t sympow::emulator::elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.getNumElements() * elementBytes(vec.getElementType());
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return 0;
}

Root sympow::emulator::traceRoot(Value memref) {
  Value v = memref;
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *owner = arg.getOwner();
      Operation *parent = owner->getParentOp();
      if (!owner->isEntryBlock() || !isa<FunctionOpInterface>(parent))
        return {};
      auto type = cast<MemRefType>(v.getType());
      if (auto fn = dyn_cast<gpu::GPUFuncOp>(parent)) {
        unsigned n = fn.getFunctionType().getNumInputs();
        if (arg.getArgNumber() >= n + fn.getNumWorkgroupAttributions())
          return {v, abi::Private};
        if (arg.getArgNumber() >= n)
          return {v, abi::Workgroup};
      }
      return {v, spaceOf(type)};
    }
    Operation *def = v.getDefiningOp();
    if (isa<memref::SubViewOp, memref::ViewOp, memref::ReinterpretCastOp,
            memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
            memref::MemorySpaceCastOp, memref::TransposeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (isa<memref::AllocaOp>(def))
      return {v, abi::Private};
    if (isa<memref::AllocOp, memref::GetGlobalOp>(def))
      return {v, spaceOf(cast<MemRefType>(v.getType()))};
    if (isa<gpu::DynamicSharedMemoryOp>(def))
      return {v, abi::Workgroup};
    return {};
  }
}

FailureOr<AccessAddress>
sympow::emulator::emitAddress(OpBuilder &b, Operation *op, Value memref,
                              ValueRange indices, RuntimeCalls &calls) {
  Location loc = op->getLoc();
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return op->emitError("the emulator needs a ranked memref with a strided "
                         "layout here, not ")
           << memref.getType();
  int64_t eb = elementBytes(type.getElementType());
  if (eb == 0)
    return op->emitError("the emulator cannot size elements of type ")
           << type.getElementType();

  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };

  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value elem = meta.getOffset();
  for (auto [i, index] : llvm::enumerate(indices))
    elem = add(elem, mul(index, meta.getStrides()[i]));
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  AccessAddress result;
  result.addr = add(aligned, mul(elem, calls.index(b, loc, eb)));

  Root root = traceRoot(memref);
  result.space = root.value ? root.space : spaceOf(type);
  auto rootType =
      root.value ? dyn_cast<MemRefType>(root.value.getType()) : MemRefType();
  if (!rootType || !rootType.getLayout().isIdentity() ||
      elementBytes(rootType.getElementType()) == 0) {
    // Unknown allocation: no bounds check (races are still checked by
    // address).
    result.rootBase = calls.index(b, loc, 0);
    result.rootBytes = calls.index(b, loc, -1);
    return result;
  }
  int64_t rootEb = elementBytes(rootType.getElementType());
  auto rootMeta = memref::ExtractStridedMetadataOp::create(b, loc, root.value);
  Value rootAligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, root.value);
  Value rootEbValue = calls.index(b, loc, rootEb);
  result.rootBase = add(rootAligned, mul(rootMeta.getOffset(), rootEbValue));
  Value bytes = rootEbValue;
  for (Value size : rootMeta.getSizes())
    bytes = mul(bytes, size);
  result.rootBytes = bytes;
  return result;
}

namespace {

/// The bits of `v` as an i64, if it has at most 64 (else null).
Value valueBits(OpBuilder &b, Location loc, Value v) {
  Type type = v.getType();
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  unsigned bits = 0;
  if (auto vec = dyn_cast<VectorType>(type)) {
    if (vec.getRank() == 1 && vec.getElementType().isIntOrFloat())
      bits = vec.getNumElements() * vec.getElementTypeBitWidth();
  } else if (type.isIntOrFloat()) {
    bits = type.getIntOrFloatBitWidth();
  }
  if (bits == 0 || bits > 64 || bits % 8)
    return {};
  auto intType = b.getIntegerType(bits);
  if (isa<VectorType>(type)) {
    // arith.bitcast keeps the shape: vector<4xf16> -> vector<1xi64> -> i64.
    v = vector::BitCastOp::create(b, loc, VectorType::get({1}, intType), v);
    v = vector::ExtractOp::create(b, loc, v, 0);
  } else if (type != intType) {
    v = arith::BitcastOp::create(b, loc, intType, v);
  }
  if (bits < 64)
    v = arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return v;
}

/// `stored`: the value a write stores, passed so that a same-value write by
/// two threads is not reported as a race.
LogicalResult check(Operation *op, Value memref, ValueRange indices,
                    int64_t bytes, int32_t rw, RuntimeCalls &calls,
                    Value stored = {}) {
  OpBuilder b(op);
  FailureOr<AccessAddress> a = emitAddress(b, op, memref, indices, calls);
  if (failed(a))
    return failure();
  Location loc = op->getLoc();
  int32_t flags = rw | (a->space << abi::SpaceShift);
  Value bits = stored ? valueBits(b, loc, stored) : Value();
  if (bits)
    flags |= abi::HasValue;
  else
    bits = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  calls.call(b, loc, abi::kAccess, {},
             {a->addr, calls.index(b, loc, bytes), a->rootBase, a->rootBytes,
              calls.i32(b, loc, flags), bits, calls.site(b, op)});
  return success();
}

/// A masked access: one check per enabled lane (lane i at i elements past
/// the first), so masked-off lanes may point anywhere, as on the GPU.
LogicalResult checkMasked(Operation *op, Value memref, ValueRange indices,
                          Value mask, int32_t rw, RuntimeCalls &calls) {
  auto maskType = cast<VectorType>(mask.getType());
  if (maskType.getRank() != 1)
    return op->emitError("the emulator supports 1-D masked accesses only");
  OpBuilder b(op);
  FailureOr<AccessAddress> a = emitAddress(b, op, memref, indices, calls);
  if (failed(a))
    return failure();
  Location loc = op->getLoc();
  auto memrefType = cast<MemRefType>(memref.getType());
  int64_t eb = elementBytes(memrefType.getElementType());
  int32_t flags = rw | (a->space << abi::SpaceShift);
  Value site = calls.site(b, op);
  Value flagsValue = calls.i32(b, loc, flags);
  Value noValue = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value ebValue = calls.index(b, loc, eb);
  auto loop = scf::ForOp::create(b, loc, calls.index(b, loc, 0),
                                 calls.index(b, loc, maskType.getNumElements()),
                                 calls.index(b, loc, 1));
  b.setInsertionPointToStart(loop.getBody());
  Value lane = loop.getInductionVar();
  Value enabled =
      vector::ExtractOp::create(b, loc, mask, ArrayRef<OpFoldResult>{lane});
  auto ifOp = scf::IfOp::create(b, loc, enabled, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value addr = arith::AddIOp::create(
      b, loc, a->addr, arith::MulIOp::create(b, loc, lane, ebValue));
  calls.call(
      b, loc, abi::kAccess, {},
      {addr, ebValue, a->rootBase, a->rootBytes, flagsValue, noValue, site});
  return success();
}

int64_t bytesOf(MemRefType memref, VectorType vector) {
  if (isa<VectorType>(memref.getElementType()))
    return elementBytes(memref.getElementType());
  return vector.getNumElements() * elementBytes(memref.getElementType());
}

} // namespace

LogicalResult sympow::emulator::instrumentAccesses(Operation *fn,
                                                   RuntimeCalls &calls) {
  SmallVector<Operation *> accesses;
  fn->walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
            memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
            vector::MaskedLoadOp, vector::MaskedStoreOp>(op))
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    LogicalResult ok = success();
    if (auto load = dyn_cast<memref::LoadOp>(op))
      ok = check(op, load.getMemRef(), load.getIndices(),
                 elementBytes(load.getMemRefType().getElementType()), abi::Read,
                 calls);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      ok = check(op, store.getMemRef(), store.getIndices(),
                 elementBytes(store.getMemRefType().getElementType()),
                 abi::Write, calls, store.getValue());
    else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      if (load.getVectorType().getRank() > 1)
        return op->emitError("the emulator supports 1-D vector.load only");
      ok = check(op, load.getBase(), load.getIndices(),
                 bytesOf(load.getMemRefType(), load.getVectorType()), abi::Read,
                 calls);
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      if (store.getVectorType().getRank() > 1)
        return op->emitError("the emulator supports 1-D vector.store only");
      ok = check(op, store.getBase(), store.getIndices(),
                 bytesOf(store.getMemRefType(), store.getVectorType()),
                 abi::Write, calls, store.getValueToStore());
    } else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
      ok = check(op, rmw.getMemref(), rmw.getIndices(),
                 elementBytes(rmw.getMemRefType().getElementType()),
                 abi::Read | abi::Write | abi::Atomic, calls);
    else if (auto load = dyn_cast<vector::MaskedLoadOp>(op))
      ok = checkMasked(op, load.getBase(), load.getIndices(), load.getMask(),
                       abi::Read, calls);
    else if (auto store = dyn_cast<vector::MaskedStoreOp>(op))
      ok = checkMasked(op, store.getBase(), store.getIndices(), store.getMask(),
                       abi::Write, calls);
    else if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
      ok = check(op, rmw.getMemref(), rmw.getIndices(),
                 elementBytes(rmw.getMemref().getType().getElementType()),
                 abi::Read | abi::Write | abi::Atomic, calls);
    if (failed(ok))
      return failure();
  }
  return success();
}
