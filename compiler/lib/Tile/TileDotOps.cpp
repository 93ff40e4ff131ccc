//===- TileDotOps.cpp - Matrix tile layouts, dot, matrix load/store -------===//
//
// Verifiers of the mma layouts (TileMatrixAttrs.td) and of the ops on matrix
// tiles (TileDotOps.td). docs/TileIR.md, "Matrix tiles".
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace sympow::tile;

#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileDotOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

LogicalResult MmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t warpsM, int64_t warpsN, bool) {
  if (warpsM < 1 || warpsN < 1 || warpsM * warpsN > 32)
    return emitError() << "an mma layout has 1 to 32 warps, not [" << warpsM
                       << ", " << warpsN << "]";
  return success();
}

LogicalResult
MmaAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                        function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 2 || shape[0] % (16 * getWarpsM()) ||
      shape[1] % (8 * getWarpsN()))
    return emitError() << "a tile in " << *this
                       << " is 2-D with rows a multiple of 16 x " << getWarpsM()
                       << " and columns a multiple of 8 x " << getWarpsN();
  return success();
}

LogicalResult
DotOperandAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned operand, MmaAttr parent) {
  if (operand > 1)
    return emitError() << "a dot operand is 0 (A) or 1 (B), not " << operand;
  return success();
}

LogicalResult DotOperandAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  MmaAttr parent = getParent();
  bool fits =
      shape.size() == 2 &&
      (getOperand() == 0
           ? shape[0] % (16 * parent.getWarpsM()) == 0 && shape[1] % 16 == 0
           : shape[0] % 16 == 0 && shape[1] % (8 * parent.getWarpsN()) == 0);
  if (!fits)
    return emitError() << "a tile in " << *this << " is 2-D with "
                       << (getOperand() == 0
                               ? "rows a multiple of 16 x warps along M and "
                                 "columns a multiple of 16"
                               : "rows a multiple of 16 and columns a "
                                 "multiple of 8 x warps along N");
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = cast<DotOperandAttr>(getA().getType().getEncoding());
  auto b = cast<DotOperandAttr>(getB().getType().getEncoding());
  Attribute c = getType().getEncoding();
  if (a.getOperand() != 0 || b.getOperand() != 1)
    return emitOpError("takes operand 0 (A) first and operand 1 (B) second");
  if (a.getParent() != c || b.getParent() != c)
    return emitOpError("operands are dot operands of the result's layout ")
           << c;
  ArrayRef<int64_t> ma = getA().getType().getShape(),
                    mb = getB().getType().getShape(), mc = getType().getShape();
  if (ma[1] != mb[0] || ma[0] != mc[0] || mb[1] != mc[1])
    return emitOpError("multiplies ")
           << ma[0] << "x" << ma[1] << " by " << mb[0] << "x" << mb[1]
           << " into " << mc[0] << "x" << mc[1];
  Type ta = getA().getType().getElementType(),
       tb = getB().getType().getElementType();
  if (getPrecision() == DotPrecision::split_bf16) {
    // f32 operands are split; a bf16 one is exact as it is.
    if (!(ta.isF32() || tb.isF32()) || !(ta.isF32() || ta.isBF16()) ||
        !(tb.isF32() || tb.isBF16()))
      return emitOpError("split_bf16 takes f32 operands, or one f32 and one "
                         "bf16");
    return success();
  }
  if (ta != tb)
    return emitOpError("operands have one element type");
  if (ta.isF32())
    return emitOpError("native precision takes bf16 or f16 operands");
  return success();
}

LogicalResult MatrixRangeOp::verify() {
  Type element = getType().getElementType();
  if (!element.isIndex() && !element.isSignlessInteger(32))
    return emitOpError("yields an index or i32 tile");
  return success();
}

LogicalResult ToOperandOp::verify() {
  RankedTensorType from = getSource().getType(), to = getType();
  auto mma = dyn_cast<MmaAttr>(from.getEncoding());
  auto operand = dyn_cast<DotOperandAttr>(to.getEncoding());
  if (!mma || !operand || operand.getOperand() != 0)
    return emitOpError("takes an mma-layout tile to a dot_operand<operand = "
                       "0> tile");
  if (mma.getWarpsN() != 1 || operand.getParent() != mma)
    return emitOpError("needs one warp column (mma<warps = [WM, 1]>) and the "
                       "same mma layout as the operand's parent");
  if (from.getDimSize(0) != to.getDimSize(0) ||
      from.getElementType() != to.getElementType())
    return emitOpError("keeps the rows and the element type");
  int64_t first = getFirstColumn(), width = to.getDimSize(1);
  if (first == 0 && width == from.getDimSize(1))
    return success();
  if (first < 0 || first % 16 != 0 || width % 16 != 0 ||
      first + width > from.getDimSize(1))
    return emitOpError("takes whole k steps of the source's columns: "
                       "first_column and the width multiples of 16, inside "
                       "the source's ")
           << from.getDimSize(1) << " columns";
  return success();
}

LogicalResult FragmentsOp::verify() {
  auto result = cast<RankedTensorType>(getType());
  Attribute layout = result.getEncoding();
  // A thread's elements: an accumulator's are spread over all warps; an
  // operand's are the same in every warp of a warp row (A) or column (B).
  auto operand = dyn_cast<DotOperandAttr>(layout);
  MmaAttr mma = operand ? operand.getParent() : cast<MmaAttr>(layout);
  int64_t threads = mma.getThreads();
  int64_t copies = !operand                    ? 1
                   : operand.getOperand() == 0 ? mma.getWarpsN()
                                               : mma.getWarpsM();
  int64_t elements = 0;
  for (Value part : getParts()) {
    BlockedAttr blocked = getLayout(part.getType());
    if (!blocked || blocked.getThreads() != threads)
      return emitOpError("takes blocked tiles over the result's ")
             << threads << " threads";
    if (getElementTypeOrSelf(part.getType()) != result.getElementType())
      return emitOpError("keeps the element type");
    elements += blocked.getPerThread();
  }
  int64_t fragment = result.getNumElements() * copies / threads;
  if (elements != fragment)
    return emitOpError("needs the ")
           << fragment << " elements a thread holds of the result, not "
           << elements;
  return success();
}

LogicalResult RepeatColumnsOp::verify() {
  RankedTensorType from = getSource().getType(), to = getType();
  auto mma = cast<MmaAttr>(from.getEncoding());
  if (to.getEncoding() != mma || mma.getWarpsN() != 1)
    return emitOpError("needs one warp column (mma<warps = [WM, 1]>) and the "
                       "same layout on both sides");
  if (from.getDimSize(0) != to.getDimSize(0))
    return emitOpError("keeps the rows");
  return success();
}

/// The buffer holds the tile's elements, bounds come as a pair.
static LogicalResult verifyMatrixAccess(Operation *op, Type buffer, Type tile,
                                        Value rows, Value cols) {
  if (cast<MemRefType>(buffer).getElementType() !=
      cast<RankedTensorType>(tile).getElementType())
    return op->emitOpError("moves ")
           << tile << " through a buffer of "
           << cast<MemRefType>(buffer).getElementType();
  if (bool(rows) != bool(cols))
    return op->emitOpError("takes bounds as (rows, cols)");
  return success();
}

LogicalResult MatrixLoadOp::verify() {
  if (getRowStride() != 1 && !getTransposed())
    return emitOpError("takes a row_stride with `transposed` only");
  return verifyMatrixAccess(*this, getBase().getType(), getType(), getRows(),
                            getCols());
}

LogicalResult MatrixStoreOp::verify() {
  if (getPaired() && (!isa<MmaAttr>(getValue().getType().getEncoding()) ||
                      getTransposed() || getStride() % 2))
    return emitOpError("pairs columns of an accumulator stored row by row "
                       "with an even stride");
  if (getPieces() && (!isa<MmaAttr>(getValue().getType().getEncoding()) ||
                      getTransposed() || getPieces() % 8))
    return emitOpError("stores an accumulator's 8-column pieces row by row, a "
                       "multiple of 8 elements apart, not ")
           << getPieces();
  return verifyMatrixAccess(*this, getBase().getType(), getValue().getType(),
                            getRows(), getCols());
}
