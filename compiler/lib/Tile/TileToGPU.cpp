//===- TileToGPU.cpp - Tile kernels to gpu.func over threads --------------===//
//
// A dialect conversion: tiles in a blocked layout become each thread's
// elements (a scalar or a vector), every op on tiles the same op on them.
// Patterns per op, one type converter, one conversion target; the kernel
// attribute becomes the launch metadata. docs/TileIR.md.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWCONVERTTILETOGPU
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow::tile {
namespace {

/// A tile becomes the elements its thread holds: T for one, vector<R x T>
/// for R; every other type stays.
struct TileTypeConverter : TypeConverter {
  TileTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](RankedTensorType type) -> std::optional<Type> {
      BlockedAttr layout = getLayout(type);
      if (!layout)
        return std::nullopt;
      if (layout.getPerThread() == 1)
        return type.getElementType();
      return VectorType::get({layout.getPerThread()}, type.getElementType());
    });
  }
};

int64_t perThread(Type tile) { return getLayout(tile).getPerThread(); }

/// A thread's elements of a converted tile, one value per slot.
SmallVector<Value> unpack(OpBuilder &b, Location loc, Value value,
                          int64_t slots) {
  if (slots == 1)
    return {value};
  SmallVector<Value> elements;
  for (int64_t i = 0; i < slots; ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, value, i));
  return elements;
}

/// The converted tile of type `type` from one value per slot.
Value pack(OpBuilder &b, Location loc, Type type, ArrayRef<Value> elements) {
  if (elements.size() == 1)
    return elements.front();
  return vector::FromElementsOp::create(b, loc, type, elements);
}

struct ProgramIdLowering : OpConversionPattern<ProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    static constexpr gpu::Dimension dims[] = {
        gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
    rewriter.replaceOpWithNewOp<gpu::BlockIdOp>(op, dims[op.getAxis()]);
    return success();
  }
};

/// Element i of the tile is held by thread i / R, slot i % R.
struct RangeLowering : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t slots = perThread(op.getType());
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value first =
        slots == 1 ? tid
                   : arith::MulIOp::create(
                         rewriter, loc, tid,
                         arith::ConstantIndexOp::create(rewriter, loc, slots));
    SmallVector<Value> elements;
    for (int64_t i = 0; i < slots; ++i)
      elements.push_back(
          i == 0 ? first
                 : arith::AddIOp::create(
                       rewriter, loc, first,
                       arith::ConstantIndexOp::create(rewriter, loc, i)));
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()),
                                elements));
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (isa<VectorType>(type))
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                       adaptor.getValue());
    else
      rewriter.replaceOp(op, adaptor.getValue());
    return success();
  }
};

/// Per slot: the element where the mask holds (the load is not executed
/// elsewhere, so masked offsets may be out of bounds), `other` elsewhere.
struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t slots = perThread(op.getType());
    SmallVector<Value> offsets =
        unpack(rewriter, loc, adaptor.getOffsets(), slots);
    SmallVector<Value> masks, others;
    if (adaptor.getMask()) {
      masks = unpack(rewriter, loc, adaptor.getMask(), slots);
      others = unpack(rewriter, loc, adaptor.getOther(), slots);
    }
    Value base = adaptor.getBase();
    SmallVector<Value> elements;
    for (int64_t i = 0; i < slots; ++i) {
      if (masks.empty()) {
        elements.push_back(
            memref::LoadOp::create(rewriter, loc, base, offsets[i]));
        continue;
      }
      auto guarded = scf::IfOp::create(
          rewriter, loc, masks[i],
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(
                b, l,
                ValueRange{memref::LoadOp::create(b, l, base, offsets[i])
                               .getResult()});
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, others[i]);
          });
      elements.push_back(guarded.getResult(0));
    }
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()),
                                elements));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t slots = perThread(op.getValue().getType());
    SmallVector<Value> values =
        unpack(rewriter, loc, adaptor.getValue(), slots);
    SmallVector<Value> offsets =
        unpack(rewriter, loc, adaptor.getOffsets(), slots);
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask(), slots);
    Value base = adaptor.getBase();
    for (int64_t i = 0; i < slots; ++i) {
      if (masks.empty()) {
        memref::StoreOp::create(rewriter, loc, values[i], base, offsets[i]);
        continue;
      }
      scf::IfOp::create(rewriter, loc, masks[i], [&](OpBuilder &b, Location l) {
        memref::StoreOp::create(b, l, values[i], base, offsets[i]);
        scf::YieldOp::create(b, l);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A splat tile constant: the same constant in every element.
struct ConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getLayout(op.getType()))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return rewriter.notifyMatchFailure(op, "only splat tile constants");
    Type type = getTypeConverter()->convertType(op.getType());
    TypedAttr value;
    if (auto vector = dyn_cast<VectorType>(type))
      value = DenseElementsAttr::get(vector, dense.getSplatValue<Attribute>());
    else
      value = cast<TypedAttr>(dense.getSplatValue<Attribute>());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// arith and math ops on tiles: the same op on the thread's elements
/// (every elementwise op takes scalars and vectors alike).
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        !op->hasTrait<OpTrait::Elementwise>() || isa<arith::ConstantOp>(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

} // namespace

LogicalResult lowerTileKernel(gpu::GPUFuncOp fn) {
  auto kernel = fn->getAttrOfType<KernelAttr>(TileDialect::getKernelAttrName());
  if (!kernel)
    return fn.emitError("not a tile kernel (no sympow_tile.kernel)");
  MLIRContext *ctx = fn.getContext();
  TileTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addIllegalDialect<TileDialect>();
  target.addLegalDialect<gpu::GPUDialect, memref::MemRefDialect,
                         vector::VectorDialect>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
      [&](Operation *op) { return converter.isLegal(op); });
  RewritePatternSet patterns(ctx);
  patterns.add<ProgramIdLowering, RangeLowering, SplatLowering, LoadLowering,
               StoreLowering, ConstantLowering, ElementwiseLowering>(converter,
                                                                     ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(fn, target, std::move(patterns))))
    return failure();

  // The launch: block from the threads, grid x constant / per tokens / 1,
  // grid y, z = B (KernelAttr's verifier).
  runtime::KernelLaunch launch;
  launch.block = {static_cast<uint32_t>(kernel.getThreads()), 1, 1};
  int64_t x = kernel.getGrid()[0];
  if (x > 0)
    launch.blocksX = x;
  else
    launch.tokensPerBlock = -x;
  launch.gridY = kernel.getGrid()[1];
  int32_t minBlocks = 1;
  if (auto floor = fn->getAttrOfType<IntegerAttr>("nvvm.minctasm"))
    minBlocks = static_cast<int32_t>(floor.getInt());
  fn->removeAttr(TileDialect::getKernelAttrName());
  setKernelLaunch(fn, launch, minBlocks);
  return success();
}

namespace {

struct SympowConvertTileToGPU
    : sympow::impl::SympowConvertTileToGPUBase<SympowConvertTileToGPU> {
  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation()->walk([&](gpu::GPUFuncOp fn) {
      if (fn->hasAttr(TileDialect::getKernelAttrName()))
        kernels.push_back(fn);
    });
    for (gpu::GPUFuncOp fn : kernels)
      if (failed(lowerTileKernel(fn)))
        return signalPassFailure();
    WalkResult stray = getOperation()->walk([&](Operation *op) {
      if (!isa<TileDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError("sympow_tile op outside a tile kernel (a gpu.func with "
                    "sympow_tile.kernel)");
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace sympow::tile
