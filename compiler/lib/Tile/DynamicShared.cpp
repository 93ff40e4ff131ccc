//===- DynamicShared.cpp - Workgroup arrays past the static limit ---------===//
//
// CUDA caps a block's static shared memory at 48 KiB; more must be dynamic
// shared memory, sized at launch, with an opt-in per function (the CUDA
// backend's cuFuncSetAttribute). A tile kernel keeps its arrays as
// workgroup attributions while it is built and lowered; where they add up
// to more than the static limit, they become views of the one dynamic
// buffer (gpu.dynamic_shared_memory + memref.view) at 16-byte aligned
// offsets, and the launch records the buffer's size.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Tile/DynamicShared.h"

#include "sympow/Support/GpuLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace sympow::tile {

namespace {

/// Bytes of a static workgroup array.
int64_t arrayBytes(MemRefType type) {
  return type.getNumElements() * int64_t(type.getElementTypeBitWidth() / 8);
}

/// The array's alignment: its `llvm.align`, at least 16 bytes (the vector
/// accesses, cp.async and the warpgroup MMAs' matrices).
int64_t alignmentOf(gpu::GPUFuncOp fn, unsigned index) {
  int64_t align = 16;
  if (auto attr = dyn_cast_or_null<IntegerAttr>(fn.getWorkgroupAttributionAttr(
          index, LLVM::LLVMDialect::getAlignAttrName())))
    align = std::max<int64_t>(align, attr.getInt());
  return align;
}

/// Each array's offset in one buffer that holds them all end to end, each
/// at its alignment; the buffer's size last.
SmallVector<int64_t> layOut(gpu::GPUFuncOp fn) {
  SmallVector<int64_t> offsets;
  int64_t at = 0;
  for (auto [i, array] : llvm::enumerate(fn.getWorkgroupAttributions())) {
    int64_t align = alignmentOf(fn, i);
    at = (at + align - 1) / align * align;
    offsets.push_back(at);
    at += arrayBytes(cast<MemRefType>(array.getType()));
  }
  offsets.push_back(at);
  return offsets;
}

} // namespace

FailureOr<int64_t> placeInDynamicShared(gpu::GPUFuncOp fn) {
  for (auto [i, array] : llvm::enumerate(fn.getWorkgroupAttributions())) {
    auto type = cast<MemRefType>(array.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return fn.emitError("workgroup array ")
             << i << " of " << type << " cannot be a view of dynamic shared "
             << "memory (a static shape and identity layout are needed)";
  }
  SmallVector<int64_t> offsets = layOut(fn);
  int64_t total = offsets.back();
  if (total <= kStaticSharedBytes)
    return int64_t(0);
  MLIRContext *ctx = fn.getContext();
  Location loc = fn.getLoc();
  Block &entry = fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value buffer = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8),
                      MemRefLayoutAttrInterface{}, space));
  SmallVector<BlockArgument> arrays(fn.getWorkgroupAttributions());
  for (auto [i, array] : llvm::enumerate(arrays)) {
    auto type = cast<MemRefType>(array.getType());
    Value offset = arith::ConstantIndexOp::create(b, loc, offsets[i]);
    Value view =
        memref::ViewOp::create(b, loc, type, buffer, offset, ValueRange{});
    BlockArgument(array).replaceAllUsesWith(view);
  }
  // The attributions go, last first (they precede any private ones).
  unsigned first = fn.getFirstWorkgroupAttributionIndex();
  for (unsigned i = arrays.size(); i-- > 0;)
    entry.eraseArgument(first + i);
  fn->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
              Builder(ctx).getI64IntegerAttr(0));
  (void)fn.removeWorkgroupAttribAttrsAttr();
  return total;
}

} // namespace sympow::tile
