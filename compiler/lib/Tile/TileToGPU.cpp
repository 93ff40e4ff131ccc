//===- TileToGPU.cpp - Tile kernels to gpu.func over threads --------------===//
//
// A dialect conversion: tiles in a blocked layout become each thread's
// elements (a scalar or a vector), every op on tiles the same op on them.
// Patterns per op, one type converter, one conversion target; the kernel
// attribute becomes the launch metadata. docs/TileIR.md.
//
//===----------------------------------------------------------------------===//

#include "BulkCopies.h"
#include "MatrixTiles.h"

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/DynamicShared.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/MapVector.h"

#include <numeric>

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
    addMatrixTileConversions(*this);
  }
};

int64_t perThread(Type tile) { return getLayout(tile).getPerThread(); }

/// The index constant v.
Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v).getResult();
}

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

/// The byte alignment of a thread's run of R elements of `element` at an
/// offset that is a multiple of R in a 16-byte aligned buffer.
int64_t runAlignment(int64_t slots, Type element) {
  return std::min<int64_t>(16, slots * element.getIntOrFloatBitWidth() / 8);
}

/// The conjunction of a thread's mask bits.
Value allOf(OpBuilder &b, Location loc, ArrayRef<Value> masks) {
  Value all = masks.front();
  for (Value m : masks.drop_front())
    all = arith::AndIOp::create(b, loc, all, m);
  return all;
}

/// The offsets of a load's or store's slots: where they are a
/// sympow_tile.run, from its start (slot i's formed only where it is
/// used: a vector access takes the start alone), else unpacked.
struct SlotOffsets {
  Value start;
  SmallVector<Value> unpacked;

  SlotOffsets(ConversionPatternRewriter &rewriter, Location loc, Value tile,
              Value converted, int64_t slots) {
    if (auto run = tile.getDefiningOp<RunOp>())
      start = rewriter.getRemappedValue(run.getStart());
    if (!start)
      unpacked = unpack(rewriter, loc, converted, slots);
  }
  Value at(OpBuilder &b, Location loc, int64_t i) const {
    if (!start)
      return unpacked[i];
    if (i == 0)
      return start;
    return arith::AddIOp::create(b, loc, start, indexConstant(b, loc, i));
  }
};

/// The one bit of a mask or condition that is a per-thread bit expanded
/// over the thread's run (sympow_tile.expand): the whole run is in or out,
/// so a vector access needs no element-wise fallback and a select chooses
/// the whole run. Null otherwise.
Value runMask(ConversionPatternRewriter &rewriter, Value mask) {
  auto expand = mask ? mask.getDefiningOp<ExpandOp>() : ExpandOp();
  if (!expand || perThread(expand.getSource().getType()) != 1)
    return {};
  return rewriter.getRemappedValue(expand.getSource());
}

/// Per slot: the element where the mask holds (the load is not executed
/// elsewhere, so masked offsets may be out of bounds), `other` elsewhere.
/// A `contiguous` load reads an unmasked run with one vector access.
struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t slots = perThread(op.getType());
    Type type = getTypeConverter()->convertType(op.getType());
    SlotOffsets offsets(rewriter, loc, op.getOffsets(), adaptor.getOffsets(),
                        slots);
    SmallVector<Value> masks, others;
    if (adaptor.getMask()) {
      masks = unpack(rewriter, loc, adaptor.getMask(), slots);
      others = unpack(rewriter, loc, adaptor.getOther(), slots);
    }
    Value base = adaptor.getBase();
    auto elementwise = [&](OpBuilder &b) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < slots; ++i) {
        if (masks.empty()) {
          elements.push_back(
              memref::LoadOp::create(b, loc, base, offsets.at(b, loc, i)));
          continue;
        }
        auto guarded = scf::IfOp::create(
            b, loc, masks[i],
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(
                  b, l,
                  ValueRange{
                      memref::LoadOp::create(b, l, base, offsets.at(b, l, i))
                          .getResult()});
            },
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(b, l, others[i]);
            });
        elements.push_back(guarded.getResult(0));
      }
      return pack(b, loc, type, elements);
    };
    if (!op.getContiguous() || slots == 1) {
      rewriter.replaceOp(op, elementwise(rewriter));
      return success();
    }
    auto vectorType = cast<VectorType>(type);
    auto wide = [&](OpBuilder &b) -> Value {
      return vector::LoadOp::create(
          b, loc, vectorType, base, ValueRange{offsets.at(b, loc, 0)},
          /*nontemporal=*/false,
          llvm::MaybeAlign(runAlignment(slots, vectorType.getElementType())));
    };
    if (masks.empty()) {
      rewriter.replaceOp(op, wide(rewriter));
      return success();
    }
    if (Value bit = runMask(rewriter, op.getMask())) {
      auto guarded = scf::IfOp::create(
          rewriter, loc, bit,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, wide(b));
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, adaptor.getOther());
          });
      rewriter.replaceOp(op, guarded.getResult(0));
      return success();
    }
    auto guarded = scf::IfOp::create(
        rewriter, loc, allOf(rewriter, loc, masks),
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, wide(b)); },
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, elementwise(b));
        });
    rewriter.replaceOp(op, guarded.getResult(0));
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
    Value value = adaptor.getValue();
    SmallVector<Value> values = unpack(rewriter, loc, value, slots);
    SlotOffsets offsets(rewriter, loc, op.getOffsets(), adaptor.getOffsets(),
                        slots);
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask(), slots);
    Value base = adaptor.getBase();
    auto elementwise = [&](OpBuilder &b) {
      for (int64_t i = 0; i < slots; ++i) {
        if (masks.empty()) {
          memref::StoreOp::create(b, loc, values[i], base,
                                  offsets.at(b, loc, i));
          continue;
        }
        emitIf(b, loc, masks[i], [&](OpBuilder &b, Location l) {
          memref::StoreOp::create(b, l, values[i], base, offsets.at(b, l, i));
        });
      }
    };
    auto wide = [&](OpBuilder &b) {
      auto vectorType = cast<VectorType>(value.getType());
      vector::StoreOp::create(
          b, loc, value, base, ValueRange{offsets.at(b, loc, 0)},
          /*nontemporal=*/false,
          llvm::MaybeAlign(runAlignment(slots, vectorType.getElementType())));
    };
    Value bit = runMask(rewriter, op.getMask());
    if (!op.getContiguous() || slots == 1) {
      elementwise(rewriter);
    } else if (masks.empty()) {
      wide(rewriter);
    } else if (bit) {
      emitIf(rewriter, loc, bit, [&](OpBuilder &b, Location) { wide(b); });
    } else {
      scf::IfOp::create(
          rewriter, loc, allOf(rewriter, loc, masks),
          [&](OpBuilder &b, Location l) {
            wide(b);
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            elementwise(b);
            scf::YieldOp::create(b, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// cp.async of the thread's run (16-byte runs bypass L1), zero-filled
/// where `read` is false, skipped where `mask` is. Not committed to a group
/// here: the wait commits every copy issued since the last (one commit per
/// wait, not per copy).
struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t elements = op.getElements();
    Type element = cast<MemRefType>(op.getSource().getType()).getElementType();
    bool wholeLine = elements * element.getIntOrFloatBitWidth() / 8 == 16;
    auto copy = [&](OpBuilder &b, Location l) {
      Value sourceElements;
      if (Value read = adaptor.getRead())
        sourceElements = arith::SelectOp::create(
            b, l, read, indexConstant(b, l, elements), indexConstant(b, l, 0));
      Type token = nvgpu::DeviceAsyncTokenType::get(b.getContext());
      nvgpu::DeviceAsyncCopyOp::create(
          b, l, token, adaptor.getDest(), ValueRange{adaptor.getDestStarts()},
          adaptor.getSource(), ValueRange{adaptor.getSourceStarts()},
          b.getIndexAttr(elements), sourceElements,
          wholeLine ? b.getUnitAttr() : UnitAttr());
    };
    if (Value mask = adaptor.getMask())
      emitIf(rewriter, loc, mask, copy);
    else
      copy(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// cp.async.wait_all: a group of the copies issued since the last commits
/// them (its token is what the wait takes), and waiting until no group is
/// pending waits for every copy.
struct AsyncWaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type token = nvgpu::DeviceAsyncTokenType::get(rewriter.getContext());
    Value group = nvgpu::DeviceAsyncCreateGroupOp::create(rewriter, op.getLoc(),
                                                          token, ValueRange{});
    nvgpu::DeviceAsyncWaitOp::create(rewriter, op.getLoc(), group,
                                     rewriter.getI32IntegerAttr(0));
    rewriter.eraseOp(op);
    return success();
  }
};

/// The arrival, by thread 0 after a barrier (the program's stores are
/// done): a GPU-scope release fence, then a compare-and-swap loop on the
/// counter word (epoch << 32 | arrivals; another epoch counts as none, the
/// last arrival leaves none); its verdict goes to every thread through
/// workgroup memory, and the last program's threads fence to acquire what
/// the others stored.
struct LastArrivalLowering : BufferedLowering<LastArrivalOp> {
  using BufferedLowering::BufferedLowering;

  LogicalResult
  matchAndRewrite(LastArrivalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value flag = buffers.lookup(i32);
    auto i64s = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    Value index0 = indexConstant(rewriter, loc, 0);
    Value epoch = arith::AndIOp::create(rewriter, loc, adaptor.getEpoch(),
                                        i64s(rewriter, 0xffffffffLL));
    Value tagged =
        arith::ShLIOp::create(rewriter, loc, epoch, i64s(rewriter, 32));
    // The arrivals counted with this one, given the word before it.
    auto arrived = [&](OpBuilder &b, Value word) {
      Value same = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::ShRUIOp::create(b, loc, word, i64s(b, 32)), epoch);
      Value before = arith::SelectOp::create(
          b, loc, same,
          arith::AndIOp::create(b, loc, word, i64s(b, 0xffffffffLL)),
          i64s(b, 0));
      return arith::AddIOp::create(b, loc, before, i64s(b, 1)).getResult();
    };
    auto isLast = [&](OpBuilder &b, Value count) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                   i64s(b, op.getPrograms()))
          .getResult();
    };
    auto fence = [&](OpBuilder &b, LLVM::AtomicOrdering ordering) {
      LLVM::FenceOp::create(b, loc, ordering, "device");
    };

    gpu::BarrierOp::create(rewriter, loc);
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, index0);
    scf::IfOp::create(rewriter, loc, first, [&](OpBuilder &b, Location) {
      fence(b, LLVM::AtomicOrdering::release);
      auto rmw = memref::GenericAtomicRMWOp::create(
          b, loc, adaptor.getCounters(), ValueRange{adaptor.getIndex()});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(rmw.getBody());
        Value count = arrived(b, rmw.getCurrentValue());
        Value next = arith::SelectOp::create(
            b, loc, isLast(b, count), tagged,
            arith::OrIOp::create(b, loc, tagged, count));
        memref::AtomicYieldOp::create(b, loc, next);
      }
      Value last = isLast(b, arrived(b, rmw.getResult()));
      memref::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, i32, last),
                              flag, ValueRange{index0});
      scf::YieldOp::create(b, loc);
    });
    gpu::BarrierOp::create(rewriter, loc);
    Value last = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        memref::LoadOp::create(rewriter, loc, flag, ValueRange{index0}),
        arith::ConstantIntOp::create(rewriter, loc, i32, 0));
    scf::IfOp::create(rewriter, loc, last, [&](OpBuilder &b, Location) {
      fence(b, LLVM::AtomicOrdering::acquire);
      scf::YieldOp::create(b, loc);
    });
    rewriter.replaceOp(op, last);
    return success();
  }
};

/// The thread's one element in each of its R slots.
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (isa<VectorType>(type))
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                       adaptor.getSource());
    else
      rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

/// start + (0, 1, ..., R - 1) per thread.
struct RunLowering : OpConversionPattern<RunOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RunOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    auto vectorType = dyn_cast<VectorType>(type);
    if (!vectorType) {
      rewriter.replaceOp(op, adaptor.getStart());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<int64_t> steps(vectorType.getNumElements());
    std::iota(steps.begin(), steps.end(), 0);
    Value step = arith::ConstantOp::create(
        rewriter, loc, vectorType,
        DenseElementsAttr::get(vectorType, ArrayRef<int64_t>(steps)));
    Value start = vector::BroadcastOp::create(rewriter, loc, vectorType,
                                              adaptor.getStart());
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, start, step);
    return success();
  }
};

/// Slot s of `even` and of `odd` (vectors of one length) at slots 2s and
/// 2s + 1 of one vector.
Value interleaveSlots(OpBuilder &b, Location loc, Value even, Value odd) {
  int64_t slots = cast<VectorType>(even.getType()).getNumElements();
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < slots; ++i)
    order.append({i, slots + i});
  return vector::ShuffleOp::create(b, loc, even, odd, order);
}

/// Slot s of each run to slots 2s and 2s + 1: a shuffle of the two runs.
struct InterleaveLowering : OpConversionPattern<InterleaveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InterleaveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    int64_t slots = perThread(op.getEven().getType());
    if (slots == 1) {
      rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
          op, type, ValueRange{adaptor.getEven(), adaptor.getOdd()});
      return success();
    }
    rewriter.replaceOp(op,
                       interleaveSlots(rewriter, op.getLoc(), adaptor.getEven(),
                                       adaptor.getOdd()));
    return success();
  }
};

/// Slots offset .. offset + S - 1 of each run: a part of the vector (the
/// element itself where S = 1, the vector where it is all of it), which
/// moves no data where the part is whole registers.
struct SlotsLowering : OpConversionPattern<SlotsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SlotsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t from = perThread(op.getSource().getType()),
            slots = perThread(op.getType()), offset = op.getOffset();
    Value source = adaptor.getSource();
    if (slots == from) {
      rewriter.replaceOp(op, source);
      return success();
    }
    if (slots == 1) {
      rewriter.replaceOpWithNewOp<vector::ExtractOp>(op, source, offset);
      return success();
    }
    // (A shuffle, which every lowering to LLVM takes, where a strided
    // slice needs its own patterns first.)
    SmallVector<int64_t> order;
    for (int64_t s = 0; s < slots; ++s)
      order.push_back(offset + s);
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, source, source, order);
    return success();
  }
};

/// select(expand(c), x, y) with one element of c per thread: the thread's
/// run chosen by that one condition (a run's mask is one bit). Per element,
/// runs of 16-bit values would be unpacked and repacked around each select.
struct RunSelectLowering : OpConversionPattern<arith::SelectOp> {
  RunSelectLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value condition = runMask(rewriter, op.getCondition());
    if (!condition)
      return rewriter.notifyMatchFailure(op, "not one condition per thread");
    rewriter.replaceOpWithNewOp<arith::SelectOp>(
        op, condition, adaptor.getTrueValue(), adaptor.getFalseValue());
    return success();
  }
};

/// Through workgroup memory: after a barrier (the previous sum's readers
/// are done) each thread writes its elements in tile order, and after a
/// second one reads its elements' columns, rows 0, 1, ... in turn. When R
/// divides the column count a thread's R elements are R adjacent columns,
/// read as one vector per row.
struct ColumnSumLowering : BufferedLowering<ColumnSumOp> {
  using BufferedLowering::BufferedLowering;

  LogicalResult
  matchAndRewrite(ColumnSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type tileType = op.getType();
    int64_t slots = perThread(tileType), size = getLayout(tileType).getSize();
    int64_t columns = op.getColumns(), rows = size / columns;
    Type element = cast<RankedTensorType>(tileType).getElementType();
    Type type = getTypeConverter()->convertType(tileType);
    Value buffer = buffers.lookup(element);
    auto idx = [&](int64_t v) { return indexConstant(rewriter, loc, v); };
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value first = arith::MulIOp::create(rewriter, loc, tid, idx(slots));
    llvm::MaybeAlign align(runAlignment(slots, element));

    int64_t threads = getLayout(tileType).getThreads();
    int64_t rowThreads = columns / slots; // threads that share columns
    if (threads % 32 == 0 && columns % slots == 0 && 32 % rowThreads == 0) {
      rewriter.replaceOp(op, sumByShuffles(rewriter, loc, adaptor.getSource(),
                                           type, buffer, tid, slots, rowThreads,
                                           threads / 32, columns));
      return success();
    }
    gpu::BarrierOp::create(rewriter, loc);
    if (slots == 1)
      memref::StoreOp::create(rewriter, loc, adaptor.getSource(), buffer,
                              first);
    else
      vector::StoreOp::create(rewriter, loc, adaptor.getSource(), buffer,
                              ValueRange{first}, false, align);
    gpu::BarrierOp::create(rewriter, loc);

    Value zero = arith::ConstantOp::create(
        rewriter, loc, type,
        isa<VectorType>(type)
            ? TypedAttr(DenseElementsAttr::get(cast<VectorType>(type),
                                               FloatAttr::get(element, 0.0)))
            : TypedAttr(FloatAttr::get(element, 0.0)));
    auto sumRows = [&](OpBuilder &b, Value column, Type part, Value init,
                       bool vector) {
      auto loop = scf::ForOp::create(
          b, loc, idx(0), idx(rows * columns), idx(columns), ValueRange{init},
          [&](OpBuilder &b, Location l, Value row, ValueRange acc) {
            Value at = arith::AddIOp::create(b, l, row, column);
            Value x =
                vector ? vector::LoadOp::create(b, l, cast<VectorType>(part),
                                                buffer, ValueRange{at}, false,
                                                align)
                             .getResult()
                       : memref::LoadOp::create(b, l, buffer, at).getResult();
            scf::YieldOp::create(
                b, l, ValueRange{arith::AddFOp::create(b, l, acc[0], x)});
          });
      return loop.getResult(0);
    };
    Value column = arith::RemUIOp::create(rewriter, loc, first, idx(columns));
    Value result;
    if (slots == 1 || columns % slots == 0) {
      result = sumRows(rewriter, column, type, zero, slots > 1);
    } else {
      SmallVector<Value> elements;
      Value scalarZero = arith::ConstantOp::create(
          rewriter, loc, FloatAttr::get(element, 0.0));
      for (int64_t i = 0; i < slots; ++i) {
        Value at = arith::RemUIOp::create(
            rewriter, loc, arith::AddIOp::create(rewriter, loc, first, idx(i)),
            idx(columns));
        elements.push_back(sumRows(rewriter, at, element, scalarZero, false));
      }
      result = pack(rewriter, loc, type, elements);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  /// When the threads that share columns (Q of them in a row, Q dividing
  /// 32) repeat within every warp: xor shuffles over the warp's rows, then
  /// one row of partial sums per warp through workgroup memory.
  Value sumByShuffles(OpBuilder &b, Location loc, Value x, Type type,
                      Value buffer, Value tid, int64_t slots,
                      int64_t rowThreads, int64_t warps,
                      int64_t columns) const {
    auto idx = [&](int64_t v) { return indexConstant(b, loc, v); };
    SmallVector<Value> values = unpack(b, loc, x, slots);
    for (int64_t mask = rowThreads; mask < 32; mask *= 2)
      for (Value &v : values)
        v = arith::AddFOp::create(
            b, loc, v, shuffleLanes(b, loc, v, mask, gpu::ShuffleMode::XOR));
    Value sum = pack(b, loc, type, values);
    if (warps == 1)
      return sum;
    Type element = getElementTypeOrSelf(type);
    llvm::MaybeAlign align(runAlignment(slots, element));
    Value lane = arith::RemUIOp::create(b, loc, tid, idx(32));
    Value warp = arith::DivUIOp::create(b, loc, tid, idx(32));
    Value column = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, lane, idx(rowThreads)),
        idx(slots));
    auto access = [&](OpBuilder &b, Value at, Value stored) -> Value {
      if (slots == 1) {
        if (stored) {
          memref::StoreOp::create(b, loc, stored, buffer, at);
          return {};
        }
        return memref::LoadOp::create(b, loc, buffer, at);
      }
      if (stored) {
        vector::StoreOp::create(b, loc, stored, buffer, ValueRange{at}, false,
                                align);
        return {};
      }
      return vector::LoadOp::create(b, loc, cast<VectorType>(type), buffer,
                                    ValueRange{at}, false, align);
    };
    gpu::BarrierOp::create(b, loc); // the previous sum's readers are done
    Value writes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         lane, idx(rowThreads));
    emitIf(b, loc, writes, [&](OpBuilder &b, Location l) {
      access(b,
             arith::AddIOp::create(
                 b, l, arith::MulIOp::create(b, l, warp, idx(columns)), column),
             sum);
    });
    gpu::BarrierOp::create(b, loc);
    Value total;
    for (int64_t w = 0; w < warps; ++w) {
      Value part = access(
          b, arith::AddIOp::create(b, loc, idx(w * columns), column), {});
      total =
          total ? arith::AddFOp::create(b, loc, total, part).getResult() : part;
    }
    return total;
  }
};

/// How segments of adjacent elements (scan, segment_reduce) fall on
/// threads: R elements a thread, `inThread` of a segment in each of its
/// `threads` threads.
struct WarpSegments {
  int64_t R, inThread, threads;

  template <typename Op> static WarpSegments of(Op op) {
    int64_t R = perThread(op.getType()), segment = op.getSegment();
    int64_t inThread = std::min(segment, R);
    return {R, inThread, segment / inThread};
  }
};

/// Segments of adjacent elements: within the thread's R elements first
/// (a running sum over its slots), then, where a segment spans several
/// threads, the threads' totals by Kogge-Stone over their lanes (round r
/// adds the total r lanes before, after reversed, where that lane is in the
/// same segment; a segment never crosses a warp, the verifier), and each
/// thread's elements offset by the totals of the threads before it (after
/// it, reversed) in its segment.
struct ScanLowering : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [R, inThread, threads] = WarpSegments::of(op);
    bool reverse = op.getReverse();
    auto add = [&](Value x, Value y) {
      return arith::AddFOp::create(rewriter, loc, x, y).getResult();
    };
    SmallVector<Value> x = unpack(rewriter, loc, adaptor.getSource(), R);
    for (int64_t first = 0; first < R; first += inThread)
      for (int64_t i = 1; i < inThread; ++i) {
        int64_t to = reverse ? first + inThread - 1 - i : first + i;
        x[to] = add(x[to], x[reverse ? to + 1 : to - 1]);
      }
    if (threads > 1) {
      // The thread's total (R divides the segment), scanned over the
      // threads of its segment.
      Value total = reverse ? x.front() : x.back();
      auto idx = [&](int64_t v) { return indexConstant(rewriter, loc, v); };
      Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
      Value at = arith::RemUIOp::create(rewriter, loc, tid, idx(threads));
      Value zero = arith::ConstantOp::create(
          rewriter, loc, FloatAttr::get(total.getType(), 0.0));
      Value sum = total;
      for (int64_t r = 1; r < threads; r *= 2) {
        Value other = shuffleLanes(rewriter, loc, sum, r,
                                   reverse ? gpu::ShuffleMode::DOWN
                                           : gpu::ShuffleMode::UP);
        Value inside =
            reverse ? arith::CmpIOp::create(
                          rewriter, loc, arith::CmpIPredicate::ult,
                          arith::AddIOp::create(rewriter, loc, at, idx(r)),
                          idx(threads))
                    : arith::CmpIOp::create(
                          rewriter, loc, arith::CmpIPredicate::uge, at, idx(r));
        sum = add(sum,
                  arith::SelectOp::create(rewriter, loc, inside, other, zero));
      }
      if (R > 1) {
        Value before = arith::SubFOp::create(rewriter, loc, sum, total);
        for (Value &element : x)
          element = add(element, before);
      } else {
        x.front() = sum;
      }
    }
    rewriter.replaceOp(op,
                       pack(rewriter, loc, adaptor.getSource().getType(), x));
    return success();
  }
};

/// Each thread combines its elements of each segment; where a segment
/// spans W / R > 1 threads (aligned groups of adjacent lanes, never across
/// a warp: the verifier), xor shuffles by 1, 2, ..., W / (2 R) give every
/// thread of the group the group's value; each element then takes its
/// segment's.
struct SegmentReduceLowering : OpConversionPattern<SegmentReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SegmentReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [R, inThread, threads] = WarpSegments::of(op);
    bool max = op.getKind() == ReduceKind::max;
    auto combine = [&](Value x, Value y) -> Value {
      if (max)
        return arith::MaximumFOp::create(rewriter, loc, x, y);
      return arith::AddFOp::create(rewriter, loc, x, y);
    };
    SmallVector<Value> x = unpack(rewriter, loc, adaptor.getSource(), R);
    for (int64_t first = 0; first < R; first += inThread) {
      Value value = x[first];
      for (int64_t i = 1; i < inThread; ++i)
        value = combine(value, x[first + i]);
      for (int64_t offset = 1; offset < threads; offset *= 2)
        value = combine(value, shuffleLanes(rewriter, loc, value, offset,
                                            gpu::ShuffleMode::XOR));
      for (int64_t i = 0; i < inThread; ++i)
        x[first + i] = value;
    }
    rewriter.replaceOp(op,
                       pack(rewriter, loc, adaptor.getSource().getType(), x));
    return success();
  }
};

/// bf16 to f32 on a thread's run of pairs, by their bits: two adjacent
/// bf16 are one 32-bit word (the even one its low half), and an f32 is its
/// bf16's bits in its upper half: a shift and an and per word. LLVM
/// extends each element on its own, and where an f32 -> bf16 truncation
/// feeds the extension (the hi half of a split) it then truncates each
/// element alone too, where cvt.rn.bf16x2.f32 packs a pair: F2F, F2F,
/// PRMT, IMAD.U32, SHF against F2FP, IMAD.U32, LOP3 in the SASS.
struct Bf16PairExtension : OpConversionPattern<arith::ExtFOp> {
  Bf16PairExtension(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto from = dyn_cast<VectorType>(adaptor.getIn().getType());
    if (!from || from.getRank() != 1 || from.getNumElements() % 2 != 0 ||
        !from.getElementType().isBF16() ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    Location loc = op.getLoc();
    int64_t pairs = from.getNumElements() / 2;
    auto words = VectorType::get({pairs}, rewriter.getI32Type());
    auto floats = VectorType::get({pairs}, rewriter.getF32Type());
    auto splat = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(words,
                                 rewriter.getI32IntegerAttr(v).getValue()));
    };
    Value w = vector::BitCastOp::create(rewriter, loc, words, adaptor.getIn());
    Value even = arith::BitcastOp::create(
        rewriter, loc, floats,
        arith::ShLIOp::create(rewriter, loc, w, splat(16)));
    Value odd = arith::BitcastOp::create(
        rewriter, loc, floats,
        arith::AndIOp::create(rewriter, loc, w, splat(int32_t(0xffff0000u))));
    rewriter.replaceOp(op, interleaveSlots(rewriter, loc, even, odd));
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

/// Ops that stay past the distribution, on the thread's elements:
/// element-wise arith, math and the flushing exp2/log2 (lowered per
/// target), and the warpgroup MMA and its wait (a thread's fragments of an
/// mma tile are its wgmma fragments).
bool isDistributedElementwise(Operation *op) {
  return ((isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
           isFlushMath(op)) &&
          op->hasTrait<OpTrait::Elementwise>() &&
          !isa<arith::ConstantOp>(op)) ||
         isa<WarpgroupMmaOp, WarpgroupWaitOp>(op);
}

/// Those ops on tiles: the same op on the thread's elements (every one
/// takes scalars and vectors alike).
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isDistributedElementwise(op))
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

void emitIf(OpBuilder &b, Location loc, Value condition,
            llvm::function_ref<void(OpBuilder &, Location)> then) {
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &b, Location l) {
    then(b, l);
    scf::YieldOp::create(b, l);
  });
}

Value shuffleLanes(OpBuilder &b, Location loc, Value x, int64_t offset,
                   gpu::ShuffleMode mode) {
  Value by = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  auto shuffle = [&](Value v) {
    return gpu::ShuffleOp::create(b, loc, v, by, width, mode)
        .getShuffleResult();
  };
  if (x.getType().getIntOrFloatBitWidth() <= 32)
    return shuffle(x);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = arith::BitcastOp::create(b, loc, i64, x);
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value lo = shuffle(arith::TruncIOp::create(b, loc, i32, bits));
  Value hi = shuffle(arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, bits, c32)));
  Value joined = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                            c32));
  return arith::BitcastOp::create(b, loc, x.getType(), joined);
}

/// The per-slot and per-fragment patterns repeat index math (one copy per
/// element) and leave per-thread offsets inside loops; CSE and hoisting
/// leave the plain kernel closer to what LLVM makes of it, so that the
/// emulator counts what the GPU runs.
static void simplifyLoweredKernel(gpu::GPUFuncOp fn) {
  MLIRContext *ctx = fn.getContext();
  IRRewriter rewriter(ctx);
  // What no op uses (a run's offsets that its vector accesses did not
  // need, a builder's values its caller left unused), users before what
  // they use.
  auto eraseDead = [&] {
    fn.walk<WalkOrder::PostOrder, ReverseIterator>([](Operation *op) {
      if (isOpTriviallyDead(op))
        op->erase();
    });
  };
  // First: a dead copy outside a branch would otherwise stand in for the
  // branch's live one, and CSE would hoist the branch's work out to every
  // thread.
  eraseDead();
  DominanceInfo dominance(fn);
  eliminateCommonSubExpressions(rewriter, dominance, fn);
  eraseDead();
  fn.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
}

/// Each warpgroups region as an scf.if on the warpgroup index (adjacent ones
/// as an if-else chain), inside which the thread ids its tiles' lowering
/// asked for count from the region's first thread and the barriers are
/// marked as a region's.
static void inlineWarpgroups(gpu::GPUFuncOp fn, int64_t kernelThreads) {
  // Adjacent regions (nothing between them) become one if-else chain: each
  // thread runs one of them, and a value one region keeps (the thread's
  // coordinates, say) is then not live through the others' code, as it is
  // through a sequence of ifs (where ptxas spilled such values at 80
  // registers). A region joins a run when it follows the run's last
  // directly, has a condition (does not cover every thread) and is
  // disjoint from the run's regions: each thread then runs one of them, as
  // it did in turn.
  auto coversAll = [&](WarpgroupsOp op) {
    return op.getFirst() == 0 && int64_t(128 * op.getCount()) >= kernelThreads;
  };
  auto disjoint = [](WarpgroupsOp x, WarpgroupsOp y) {
    return x.getFirst() + x.getCount() <= y.getFirst() ||
           y.getFirst() + y.getCount() <= x.getFirst();
  };
  SmallVector<SmallVector<WarpgroupsOp>> runs;
  fn.walk([&](WarpgroupsOp op) {
    if (!runs.empty() && runs.back().back()->getNextNode() == op &&
        !coversAll(op) && !coversAll(runs.back().back()) &&
        llvm::all_of(runs.back(),
                     [&](WarpgroupsOp other) { return disjoint(op, other); }))
      runs.back().push_back(op);
    else
      runs.push_back({op});
  });
  for (ArrayRef<WarpgroupsOp> run : runs) {
    OpBuilder b(run.front());
    for (size_t k = 0; k < run.size(); ++k) {
      WarpgroupsOp op = run[k];
      Location loc = op.getLoc();
      auto index = [&](int64_t v) { return indexConstant(b, loc, v); };
      int64_t first = op.getFirst(), end = first + op.getCount();
      SmallVector<gpu::ThreadIdOp> ids;
      op.getBody().walk([&](Operation *inner) {
        if (auto id = dyn_cast<gpu::ThreadIdOp>(inner))
          if (id.getDimension() == gpu::Dimension::x)
            ids.push_back(id);
        if (isa<gpu::BarrierOp>(inner))
          inner->setAttr(WarpgroupsOp::getBarrierAttrName(), b.getUnitAttr());
      });
      Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      Value warpgroup = arith::DivUIOp::create(b, loc, tid, index(128));
      Value inside;
      auto both = [&](Value c) {
        inside = inside ? arith::AndIOp::create(b, loc, inside, c) : c;
      };
      if (first > 0)
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warpgroup,
                                   index(first)));
      if (128 * end < kernelThreads)
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warpgroup,
                                   index(end)));
      Block *body = &op.getBody().front();
      Block *rest = nullptr; // where the run's next region goes
      if (inside) {
        bool more = k + 1 < run.size();
        auto branch = scf::IfOp::create(b, loc, inside, /*else=*/more);
        Block *then = branch.thenBlock();
        then->getOperations().splice(then->begin(), body->getOperations());
        if (more)
          rest = branch.elseBlock();
        b.setInsertionPointToStart(then);
      } else {
        // (Alone in its run.)
        op->getBlock()->getOperations().splice(Block::iterator(op),
                                               body->getOperations());
      }
      if (first > 0) {
        Value from = arith::SubIOp::create(b, loc, tid, index(128 * first));
        for (gpu::ThreadIdOp id : ids) {
          id.replaceAllUsesWith(from);
          id.erase();
        }
      }
      op.erase();
      if (rest)
        b.setInsertionPointToStart(rest);
    }
  }
}

LogicalResult lowerTileKernel(gpu::GPUFuncOp fn) {
  auto kernel = fn->getAttrOfType<KernelAttr>(TileDialect::getKernelAttrName());
  if (!kernel)
    return fn.emitError("not a tile kernel (no sympow_tile.kernel)");
  // Kernels built in C++ meet their ops' verifiers before they are lowered
  // (a parsed one has already).
  if (failed(verify(fn)))
    return failure();
  MLIRContext *ctx = fn.getContext();
  ctx->getOrLoadDialect<LLVM::LLVMDialect>(); // last_arrival's fences
  // One workgroup buffer per element type that column sums use.
  llvm::MapVector<Type, int64_t> sumSizes;
  fn.walk([&](ColumnSumOp op) {
    int64_t &size = sumSizes[op.getType().getElementType()];
    size = std::max(size, op.getType().getDimSize(0));
  });
  // Row reductions over several warp columns: one value per (row, warp
  // column), in the same buffer (both start with a barrier).
  fn.walk([&](RowReduceOp op) {
    auto mma = cast<MmaAttr>(op.getType().getEncoding());
    if (mma.getWarpsN() == 1)
      return;
    int64_t &size = sumSizes[op.getType().getElementType()];
    size = std::max(size, op.getType().getDimSize(0) * mma.getWarpsN());
  });
  // An arrival's verdict: one i32.
  fn.walk([&](LastArrivalOp) {
    int64_t &size = sumSizes[IntegerType::get(ctx, 32)];
    size = std::max<int64_t>(size, 1);
  });
  ReductionBuffers sumBuffers;
  for (auto [element, size] : sumSizes) {
    auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    sumBuffers[element] = fn.addWorkgroupAttribution(
        MemRefType::get({size}, element, MemRefLayoutAttrInterface{}, space),
        fn.getLoc());
  }
  expandSplitDots(fn);
  TileTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addIllegalDialect<TileDialect>();
  target.addLegalDialect<gpu::GPUDialect, memref::MemRefDialect,
                         vector::VectorDialect, nvgpu::NVGPUDialect>();
  target.addLegalOp<LLVM::FenceOp>();
  // Its body is converted in place; inlineWarpgroups branches to it after.
  target.addLegalOp<WarpgroupsOp>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
      [&](Operation *op) { return converter.isLegal(op); });
  // Thread-level ops, each target lowers them.
  target.addLegalOp<WarpgroupDescriptorOp, WarpgroupFenceOp, AsyncProxyFenceOp,
                    WarpgroupCommitOp>();
  target.addDynamicallyLegalOp<Exp2FtzOp, Log2FtzOp, WarpgroupMmaOp,
                               WarpgroupWaitOp>(
      [&](Operation *op) { return converter.isLegal(op); });
  RewritePatternSet patterns(ctx);
  patterns
      .add<ProgramIdLowering, RangeLowering, SplatLowering, LoadLowering,
           StoreLowering, ExpandLowering, ScanLowering, SegmentReduceLowering,
           ConstantLowering, ElementwiseLowering, Bf16PairExtension,
           InterleaveLowering, SlotsLowering, RunSelectLowering, RunLowering,
           AsyncCopyLowering, AsyncWaitLowering>(converter, ctx);
  patterns.add<ColumnSumLowering, LastArrivalLowering>(converter, ctx,
                                                       sumBuffers);
  populateMatrixTileLowering(converter, patterns, target, sumBuffers);
  populateBulkCopyLowering(converter, patterns, target);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(fn, target, std::move(patterns))))
    return failure();
  inlineWarpgroups(fn, kernel.getThreads());
  simplifyLoweredKernel(fn);

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
  // Arrays past CUDA's static 48 KiB live in dynamic shared memory.
  FailureOr<int64_t> dynamicBytes = placeInDynamicShared(fn);
  if (failed(dynamicBytes))
    return failure();
  launch.dynamicSharedBytes = static_cast<uint32_t>(*dynamicBytes);
  int32_t minBlocks = getMinBlocksPerSM(fn);
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
    // (The flushing exp2 and log2 and the warpgroup MMA ops take scalars
    // and vectors too: they are lowered per target.)
    WalkResult stray = getOperation()->walk([&](Operation *op) {
      if (!isa<TileDialect>(op->getDialect()) || isThreadLevel(op))
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
