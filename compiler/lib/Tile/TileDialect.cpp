//===- TileDialect.cpp - The sympow_tile dialect --------------------------===//

#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sympow::tile;

#include "sympow/Compiler/Tile/TileDialect.cpp.inc"

//===----------------------------------------------------------------------===//
// Grid dimensions: n, cdiv(T, n) or B.
//===----------------------------------------------------------------------===//

static ParseResult parseGrid(AsmParser &parser, SmallVector<int64_t> &grid) {
  return parser.parseCommaSeparatedList([&]() -> ParseResult {
    if (succeeded(parser.parseOptionalKeyword("B"))) {
      grid.push_back(KernelAttr::kBatch);
      return success();
    }
    if (succeeded(parser.parseOptionalKeyword("cdiv"))) {
      int64_t n;
      if (parser.parseLParen() || parser.parseKeyword("T") ||
          parser.parseComma() || parser.parseInteger(n) || parser.parseRParen())
        return failure();
      if (n < 1)
        return parser.emitError(parser.getCurrentLocation(),
                                "cdiv(T, n) needs n >= 1");
      grid.push_back(KernelAttr::perTokens(n));
      return success();
    }
    int64_t n;
    if (parser.parseInteger(n))
      return failure();
    if (n < 1)
      return parser.emitError(parser.getCurrentLocation(),
                              "a grid dimension is at least 1");
    grid.push_back(n);
    return success();
  });
}

static void printGrid(AsmPrinter &printer, ArrayRef<int64_t> grid) {
  llvm::interleaveComma(grid, printer, [&](int64_t n) {
    if (n == KernelAttr::kBatch)
      printer << "B";
    else if (n < 0)
      printer << "cdiv(T, " << -n << ")";
    else
      printer << n;
  });
}

#include "sympow/Compiler/Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sympow/Compiler/Tile/TileAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileOps.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sympow/Compiler/Tile/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sympow/Compiler/Tile/TileOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sympow/Compiler/Tile/TileDotOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sympow/Compiler/Tile/TileWarpgroupOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sympow/Compiler/Tile/TileBulkCopyOps.cpp.inc"
      >();
}

namespace sympow::tile {

Type withElementType(Type tile, Type element) {
  return cast<RankedTensorType>(tile).clone(element);
}

BlockedAttr getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<BlockedAttr>(tensor.getEncoding())
                : BlockedAttr();
}

int64_t getTileThreads(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding())
    return 0;
  return llvm::TypeSwitch<Attribute, int64_t>(tensor.getEncoding())
      .Case<BlockedAttr, MmaAttr, DotOperandAttr>(
          [](auto layout) { return layout.getThreads(); })
      .Default([](Attribute) { return 0; });
}

bool isFlushMath(Operation *op) { return isa<Exp2FtzOp, Log2FtzOp>(op); }

bool isThreadLevel(Operation *op) {
  if (!isFlushMath(op) &&
      !isa<WarpgroupDescriptorOp, WarpgroupFenceOp, AsyncProxyFenceOp,
           WarpgroupMmaOp, WarpgroupCommitOp, WarpgroupWaitOp, MbarrierInitOp,
           MbarrierArriveOp, MbarrierWaitOp, BulkCopyOp, ElectedOp>(op))
    return false;
  return llvm::none_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>);
}

} // namespace sympow::tile

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t threads, int64_t perThread) {
  if (threads < 1 || threads > 1024)
    return emitError() << "a blocked layout spreads over 1 to 1024 threads, "
                          "not "
                       << threads;
  if (perThread < 1)
    return emitError() << "per_thread must be at least 1, not " << perThread;
  return success();
}

LogicalResult BlockedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 1 || shape[0] != getSize())
    return emitError() << "a tile in " << *this
                       << " is 1-D with threads * per_thread = " << getSize()
                       << " elements";
  return success();
}

LogicalResult KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t threads, ArrayRef<int64_t> grid) {
  if (threads < 1 || threads > 1024)
    return emitError() << "a tile kernel has 1 to 1024 threads, not "
                       << threads;
  if (grid.size() != 3)
    return emitError() << "the grid has 3 dimensions (x, y, z)";
  if (grid[0] == kBatch)
    return emitError() << "grid x is a constant or cdiv(T, n)";
  if (grid[1] < 1)
    return emitError() << "grid y is a constant";
  if (grid[2] != kBatch)
    return emitError() << "grid z is B (one program per sequence)";
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == WarpgroupsOp::getBarrierAttrName()) {
    if (!isa<gpu::BarrierOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << attr.getName() << " marks a gpu.barrier (a unit attribute)";
    return success();
  }
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown attribute " << attr.getName();
  auto kernel = dyn_cast<KernelAttr>(attr.getValue());
  if (!kernel)
    return op->emitError() << attr.getName()
                           << " must be a #sympow_tile.kernel";
  auto fn = dyn_cast<gpu::GPUFuncOp>(op);
  if (!fn || !fn.isKernel())
    return op->emitError() << attr.getName() << " marks a gpu.func kernel";
  // Every tile is spread over the kernel's threads, or inside a warpgroups
  // region over the region's.
  WalkResult walk = fn.walk([&](Operation *inner) {
    if (auto region = dyn_cast<WarpgroupsOp>(inner)) {
      if (int64_t(128 * (region.getFirst() + region.getCount())) >
          kernel.getThreads()) {
        region.emitOpError("names warpgroups ")
            << region.getFirst() << " to "
            << region.getFirst() + region.getCount() - 1 << ", the kernel has "
            << kernel.getThreads() << " threads";
        return WalkResult::interrupt();
      }
    }
    auto region = inner->getParentOfType<WarpgroupsOp>();
    int64_t expected = region ? region.getThreads() : kernel.getThreads();
    auto check = [&](Type type) {
      int64_t threads = getTileThreads(type);
      if (threads && threads != expected) {
        inner->emitError() << "tile " << type << " is spread over " << threads
                           << " threads, "
                           << (region ? "its warpgroups region has "
                                      : "the kernel has ")
                           << expected;
        return false;
      }
      return true;
    };
    for (Type t : inner->getResultTypes())
      if (!check(t))
        return WalkResult::interrupt();
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          if (!check(t))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyElements(Operation *op, Type buffer, Type tile) {
  Type element = cast<MemRefType>(buffer).getElementType();
  if (element != cast<RankedTensorType>(tile).getElementType())
    return op->emitOpError()
           << "moves " << tile << " through a buffer of " << element;
  return success();
}

LogicalResult LoadOp::verify() {
  if (bool(getMask()) != bool(getOther()))
    return emitOpError("takes a mask and `other` together");
  return verifyElements(*this, getBase().getType(), getType());
}

LogicalResult StoreOp::verify() {
  return verifyElements(*this, getBase().getType(), getValue().getType());
}

/// `op` widens `source`, a tile of one element per thread (`what`
/// describes that operand in the error), to `result`, R per thread over
/// the same threads.
static LogicalResult verifyWidening(Operation *op, Type source, Type result,
                                    StringRef what) {
  BlockedAttr from = getLayout(source), to = getLayout(result);
  if (from.getPerThread() != 1)
    return op->emitOpError()
           << what << " one element per thread, not " << from.getPerThread();
  if (from.getThreads() != to.getThreads())
    return op->emitOpError("keeps the threads: ")
           << from.getThreads() << " to " << to.getThreads();
  return success();
}

LogicalResult ExpandOp::verify() {
  if (failed(verifyWidening(*this, getSource().getType(), getType(),
                            "expands a tile of")))
    return failure();
  if (getSource().getType().getElementType() != getType().getElementType())
    return emitOpError("keeps the element type");
  return success();
}

LogicalResult RunOp::verify() {
  return verifyWidening(*this, getStart().getType(), getType(), "starts from");
}

LogicalResult InterleaveOp::verify() {
  BlockedAttr from = getLayout(getEven().getType()), to = getLayout(getType());
  if (from.getThreads() != to.getThreads())
    return emitOpError("keeps the threads: ")
           << from.getThreads() << " to " << to.getThreads();
  if (to.getPerThread() != 2 * from.getPerThread())
    return emitOpError("makes runs of twice ")
           << from.getPerThread() << " elements, not " << to.getPerThread();
  if (getEven().getType().getElementType() != getType().getElementType())
    return emitOpError("keeps the element type");
  return success();
}

LogicalResult SlotsOp::verify() {
  BlockedAttr from = getLayout(getSource().getType()),
              to = getLayout(getType());
  if (from.getThreads() != to.getThreads())
    return emitOpError("keeps the threads: ")
           << from.getThreads() << " to " << to.getThreads();
  if (getOffset() + to.getPerThread() > from.getPerThread())
    return emitOpError("takes slots ")
           << getOffset() << " .. " << getOffset() + to.getPerThread() - 1
           << " of runs of " << from.getPerThread();
  if (getSource().getType().getElementType() != getType().getElementType())
    return emitOpError("keeps the element type");
  return success();
}

namespace sympow::tile {
LogicalResult verifyCopyBuffers(Operation *op, Value source, Value dest) {
  auto from = cast<MemRefType>(source.getType());
  auto to = cast<MemRefType>(dest.getType());
  if (from.getElementType() != to.getElementType())
    return op->emitOpError("copies ")
           << from.getElementType() << " into a buffer of "
           << to.getElementType();
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(to))
    return op->emitOpError("copies into workgroup memory, not ") << to;
  if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(from))
    return op->emitOpError("copies from global memory, not ") << from;
  return success();
}
} // namespace sympow::tile

LogicalResult AsyncCopyOp::verify() {
  if (failed(verifyCopyBuffers(*this, getSource(), getDest())))
    return failure();
  auto source = cast<MemRefType>(getSource().getType());
  if (int64_t perThread = getLayout(getSourceStarts().getType()).getPerThread();
      perThread != 1)
    return emitOpError("takes one start per thread, not ") << perThread;
  Type element = source.getElementType();
  if (!element.isIntOrFloat())
    return emitOpError("copies integers or floats, not ") << element;
  int64_t bytes = getElements() * element.getIntOrFloatBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError("copies runs of 4, 8 or 16 bytes, not ")
           << bytes << " (" << getElements() << " x " << element << ")";
  return success();
}

LogicalResult ColumnSumOp::verify() {
  int64_t size = getType().getDimSize(0);
  if (size % getColumns())
    return emitOpError("columns = ")
           << getColumns() << " must divide the tile's " << size << " elements";
  return success();
}

/// Segments of adjacent elements within one warp (scan, segment_reduce).
static LogicalResult verifyWarpSegments(Operation *op, BlockedAttr layout,
                                        int64_t segment) {
  int64_t R = layout.getPerThread();
  if (layout.getThreads() % 32 != 0)
    return op->emitOpError("needs whole warps: ")
           << layout.getThreads() << " threads";
  if (!llvm::isPowerOf2_64(segment) || !llvm::isPowerOf2_64(R) ||
      segment > 32 * R)
    return op->emitOpError("segment = ")
           << segment << " must be a power of two up to 32 threads' " << R
           << " elements (one warp), with R a power of two";
  return success();
}

LogicalResult ScanOp::verify() {
  return verifyWarpSegments(*this, getLayout(getType()), getSegment());
}

LogicalResult SegmentReduceOp::verify() {
  return verifyWarpSegments(*this, getLayout(getType()), getSegment());
}
