//===- TileWarpgroupOps.cpp - Warpgroup MMA ops: verifiers, descriptors ---===//
//
// TileWarpgroupOps.td: what each op accepts (the shapes and types wgmma has)
// and the one encoding of a matrix descriptor, which both targets' lowerings
// emit (docs/design/wgmma.md, §2).
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace sympow::tile;

#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileWarpgroupOps.cpp.inc"

namespace {
// Each offset field holds its byte count >> 4 in 14 bits.
constexpr int64_t kLargestOffset = ((int64_t(1) << 14) - 1) << 4;
} // namespace

int64_t WarpgroupDescriptorOp::getLayoutCode() {
  switch (getSwizzle()) {
  case 128:
    return 1;
  case 64:
    return 2;
  case 32:
    return 3;
  default:
    return 0;
  }
}

Value WarpgroupDescriptorOp::encode(OpBuilder &b, Value windowAddress) {
  Location loc = getLoc();
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  // Bits 0-13: (address & 0x3FFFF) >> 4; 16-29 leading >> 4; 32-45 stride
  // >> 4; 49-51 base offset (0: verified alignment); 62-63 the swizzle.
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, windowAddress, i64(4)),
      i64(0x3FFF));
  int64_t fields = (getLeading() >> 4) << 16 | (getStride() >> 4) << 32 |
                   getLayoutCode() << 62;
  return arith::OrIOp::create(b, loc, start, i64(fields));
}

WarpgroupDescriptorOp
WarpgroupDescriptorOp::behind(Value descriptor,
                              SmallVectorImpl<Value> &sixteens) {
  while (auto add = descriptor.getDefiningOp<arith::AddIOp>()) {
    sixteens.push_back(add.getRhs());
    descriptor = add.getLhs();
  }
  return descriptor.getDefiningOp<WarpgroupDescriptorOp>();
}

LogicalResult WarpgroupDescriptorOp::verify() {
  auto buffer = cast<MemRefType>(getBuffer().getType());
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(buffer))
    return emitOpError("describes workgroup memory, not ") << buffer;
  Type element = buffer.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
    return emitOpError("describes a buffer of bytes, integers or floats, not ")
           << element;
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitOpError("swizzle is 0 (none), 32, 64 or 128 bytes, not ")
           << swizzle;
  for (auto [name, bytes] :
       {std::pair<StringRef, int64_t>{"leading", getLeading()},
        {"stride", getStride()}})
    if (bytes % 16 || bytes > kLargestOffset)
      return emitOpError() << name << " is a multiple of 16 bytes up to "
                           << kLargestOffset << ", not " << bytes;
  // A workgroup attribution of the kernel: its alignment is known here. A
  // matrix starts on 16 bytes, a swizzled one's pattern (8 rows of the
  // swizzle) on its size; the emulator checks other buffers when it runs.
  auto arg = dyn_cast<BlockArgument>(getBuffer());
  auto fn = arg ? dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp())
                : gpu::GPUFuncOp();
  int64_t index =
      fn ? int64_t(arg.getArgNumber()) - fn.getFirstWorkgroupAttributionIndex()
         : -1;
  if (fn && index >= 0 && index < fn.getNumWorkgroupAttributions()) {
    int64_t needed = std::max<int64_t>(16, 8 * swizzle);
    auto align = dyn_cast_or_null<IntegerAttr>(
        fn.getWorkgroupAttributionAttr(index, "llvm.align"));
    if (!align || align.getInt() < needed)
      return emitOpError("describes a workgroup attribution aligned to ")
             << (align ? align.getInt() : 0)
             << " bytes; give it {llvm.align = " << needed
             << " : i64} (a matrix starts on 16 bytes, a swizzle "
             << "pattern on 8 x its bytes)";
  }
  return success();
}

int64_t WarpgroupMmaOp::getN() {
  if (auto tile = dyn_cast<RankedTensorType>(getAcc().getType())) {
    auto mma = dyn_cast_or_null<MmaAttr>(tile.getEncoding());
    if (tile.getRank() != 2 || !mma)
      return 0;
    return tile.getDimSize(1) / mma.getWarpsN();
  }
  return 2 * cast<VectorType>(getAcc().getType()).getNumElements();
}

/// Why a tile cannot be a warpgroup accumulator (empty: it can): an mma
/// layout of 4 g warps in a column, 16 rows each, or of warpgroups side by
/// side, each 64 rows of a column block.
static std::string notWarpgroupAccumulator(RankedTensorType tile) {
  auto mma = dyn_cast_or_null<MmaAttr>(tile.getEncoding());
  if (!mma || tile.getRank() != 2)
    return "a 2-D tile in an mma layout";
  bool stacked = mma.getWarpsN() == 1 && mma.getWarpsM() % 4 == 0;
  bool sideBySide = mma.getColumnMajor() && mma.getWarpsM() == 4;
  if (!(stacked || sideBySide) || tile.getDimSize(0) != 16 * mma.getWarpsM())
    return "16 rows per warp of mma<warps = [4 g, 1]> (64 per warpgroup) or "
           "of mma<warps = [4, g], column_major = true>";
  return {};
}

LogicalResult WarpgroupMmaOp::verify() {
  int64_t n = getN();
  if (n % 8 || n < 8 || n > 256)
    return emitOpError("N is a multiple of 8 from 8 to 256, not ")
           << n << " (" << getAcc().getType() << ")";
  Type input = getInputType();
  if (!input.isBF16() && !input.isF16())
    return emitOpError("multiplies bf16 or f16 (accumulating in f32), not ")
           << input;
  Type a = getA().getType();
  if (auto tile = dyn_cast<RankedTensorType>(getAcc().getType())) {
    if (std::string why = notWarpgroupAccumulator(tile); !why.empty())
      return emitOpError("takes an accumulator tile of ")
             << why << ", not " << tile;
    auto aTile = dyn_cast<RankedTensorType>(a);
    auto operand =
        aTile ? dyn_cast_or_null<DotOperandAttr>(aTile.getEncoding()) : nullptr;
    if (!a.isInteger(64) &&
        (!operand || operand.getOperand() != 0 ||
         operand.getParent() != tile.getEncoding() ||
         aTile.getShape() != ArrayRef<int64_t>{tile.getDimSize(0), 16} ||
         aTile.getElementType() != input))
      return emitOpError("takes A in a tile kernel as a ")
             << RankedTensorType::get({tile.getDimSize(0), 16}, input)
             << " tile of the accumulator's dot_operand 0, not " << a;
  } else if (isa<RankedTensorType>(a)) {
    return emitOpError("takes A as a tile only with an accumulator tile");
  } else if (auto v = dyn_cast<VectorType>(a)) {
    if (v.getNumElements() != 8 || v.getElementType() != input)
      return emitOpError("takes A from registers as 8 ")
             << input << " (mma.sync's A fragment), not " << a;
  }
  if (hasRegisterA() && getTransposeA())
    return emitOpError("cannot transpose A from registers");
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  if (getPending() > 7)
    return emitOpError("waits with at most 7 groups pending, not ")
           << getPending();
  for (Type type : getAccs().getTypes())
    if (auto tile = dyn_cast<RankedTensorType>(type))
      if (std::string why = notWarpgroupAccumulator(tile); !why.empty())
        return emitOpError("waits for accumulator tiles of ")
               << why << ", not " << tile;
  return success();
}

LogicalResult WarpgroupWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}
