//===- LowerBulkCopies.cpp - mbarrier and bulk-copy ops to NVVM -----------===//
//
// The thread-level sympow_tile.mbarrier_* and bulk_copy ops become NVVM's
// mbarrier ops on the barrier's workgroup address and, on sm_90 and later,
// cp.async.bulk with complete_tx; before sm_90 a copy is the issuing
// thread's 16-byte cp.asyncs and a cp.async.mbarrier.arrive, which raises
// the barrier's pending count and lowers it again when they land, so that
// the kernel's arrival counts hold on both targets (TileBulkCopyOps.td).
//
//===----------------------------------------------------------------------===//

#include "BufferAddress.h"

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLOWERBULKCOPIES
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

/// The address of buffer[offset] as a pointer of `addressSpace`: the shared
/// window's (3) for workgroup buffers, global (1) for the others, whose
/// generic addresses are global ones.
Value pointerTo(OpBuilder &b, Location loc, Value buffer, Value offset,
                unsigned addressSpace) {
  Value address = gpu_detail::byteAddress(b, loc, buffer, offset);
  MLIRContext *ctx = b.getContext();
  if (addressSpace == 3)
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3),
                                    address);
  Value generic = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx), address);
  return LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, addressSpace), generic);
}

Value i32Of(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

Value i32Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

struct InitLowering : OpRewritePattern<tile::MbarrierInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::MbarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = pointerTo(rewriter, loc, op.getBarriers(), op.getIndex(), 3);
    NVVM::MBarrierInitOp::create(
        rewriter, loc, bar, i32Constant(rewriter, loc, op.getCount()), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A lowering that depends on whether the target has bulk copies and
/// transaction counts (sm_90 on).
template <typename Op> struct TargetLowering : OpRewritePattern<Op> {
  TargetLowering(MLIRContext *ctx, bool bulk)
      : OpRewritePattern<Op>(ctx), bulk(bulk) {}
  bool bulk;
};

struct ArriveLowering : TargetLowering<tile::MbarrierArriveOp> {
  using TargetLowering::TargetLowering;
  LogicalResult matchAndRewrite(tile::MbarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = pointerTo(rewriter, loc, op.getBarriers(), op.getIndex(), 3);
    // Before sm_90 there are no transaction counts: the copies arrive
    // themselves (BulkCopyLowering).
    if (bulk && op.getExpectTx())
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, Type(), bar, i32Of(rewriter, loc, op.getExpectTx()),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
    else
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), bar, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitLowering : TargetLowering<tile::MbarrierWaitOp> {
  using TargetLowering::TargetLowering;
  LogicalResult matchAndRewrite(tile::MbarrierWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = pointerTo(rewriter, loc, op.getBarriers(), op.getIndex(), 3);
    Value parity = i32Of(rewriter, loc, op.getParity());
    if (bulk) {
      // NVVM's op loops until the phase completed; the suspend hint is
      // CUTLASS's.
      NVVM::MBarrierTryWaitParityOp::create(
          rewriter, loc, bar, parity, i32Constant(rewriter, loc, 0x989680));
    } else {
      auto loop =
          scf::WhileOp::create(rewriter, loc, TypeRange{}, ValueRange{});
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.createBlock(&loop.getBefore());
      Value done = NVVM::MBarrierTestWaitOp::create(
          rewriter, loc, rewriter.getI1Type(), bar, parity);
      Value again = arith::XOrIOp::create(
          rewriter, loc, done,
          arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
      scf::ConditionOp::create(rewriter, loc, again, ValueRange{});
      rewriter.setInsertionPointToStart(rewriter.createBlock(&loop.getAfter()));
      scf::YieldOp::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkCopyLowering : TargetLowering<tile::BulkCopyOp> {
  using TargetLowering::TargetLowering;
  LogicalResult matchAndRewrite(tile::BulkCopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = pointerTo(rewriter, loc, op.getBarriers(), op.getIndex(), 3);
    if (bulk) {
      // The .shared::cluster form (PTX 8.0; the CTA's own window is part
      // of its cluster's): .shared::cta needs PTX 8.6.
      Value dst = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(op.getContext(), 7),
          pointerTo(rewriter, loc, op.getDest(), op.getDestStart(), 3));
      Value src =
          pointerTo(rewriter, loc, op.getSource(), op.getSourceStart(), 1);
      NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
          rewriter, loc, dst, src, bar, i32Of(rewriter, loc, op.getBytes()),
          Value(), Value());
      rewriter.eraseOp(op);
      return success();
    }
    // 16 bytes at a time: `run` elements.
    auto type = cast<MemRefType>(op.getSource().getType());
    int64_t run = 128 / type.getElementTypeBitWidth();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value pieces = arith::DivUIOp::create(
        rewriter, loc, op.getBytes(),
        arith::ConstantIndexOp::create(rewriter, loc, 16));
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, zero, pieces, one);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      Value shift = arith::MulIOp::create(
          rewriter, loc, loop.getInductionVar(),
          arith::ConstantIndexOp::create(rewriter, loc, run));
      Value to = arith::AddIOp::create(rewriter, loc, op.getDestStart(), shift);
      Value from =
          arith::AddIOp::create(rewriter, loc, op.getSourceStart(), shift);
      nvgpu::DeviceAsyncCopyOp::create(
          rewriter, loc, nvgpu::DeviceAsyncTokenType::get(op.getContext()),
          op.getDest(), ValueRange{to}, op.getSource(), ValueRange{from},
          rewriter.getIndexAttr(run), Value(), rewriter.getUnitAttr());
    }
    NVVM::CpAsyncMBarrierArriveOp::create(rewriter, loc, bar,
                                          /*noinc=*/false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerBulkCopies : impl::SympowLowerBulkCopiesBase<LowerBulkCopies> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult tiles = getOperation()->walk([](Operation *op) {
      if (isa<tile::MbarrierInitOp, tile::MbarrierArriveOp,
              tile::MbarrierWaitOp, tile::BulkCopyOp>(op) &&
          !tile::isThreadLevel(op)) {
        op->emitOpError("is lowered on a thread's scalars (lower the tile "
                        "kernel first)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (tiles.wasInterrupted())
      return signalPassFailure();
    SmallVector<tile::BulkCopyOp> repeated;
    getOperation()->walk([&](tile::BulkCopyOp op) { repeated.push_back(op); });
    for (tile::BulkCopyOp op : repeated)
      op.expandRepeats();
    // Bulk copies and transaction counts came with sm_90.
    bool bulk = chip.rfind("sm_9", 0) == 0 || chip.rfind("sm_1", 0) == 0;
    // One thread's regions: on sm_90 an elected lane of warp 0, from
    // warp-uniform code (ptxas issues a uniform instruction such as UBLKCP
    // there without a loop over the active lanes); before, thread 0.
    SmallVector<tile::ElectedOp> elected;
    getOperation()->walk([&](tile::ElectedOp op) { elected.push_back(op); });
    for (tile::ElectedOp op : elected) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      if (!bulk) {
        op.inlineUnder(b, arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::eq, thread, zero));
        continue;
      }
      Value warp = arith::DivUIOp::create(
          b, loc, thread, arith::ConstantIndexOp::create(b, loc, 32));
      auto warp0 = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, zero),
          /*else=*/false);
      b.setInsertionPointToStart(warp0.thenBlock());
      op.inlineUnder(b,
                     NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value()));
    }
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<InitLowering>(ctx);
    patterns.add<ArriveLowering, WaitLowering, BulkCopyLowering>(ctx, bulk);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
} // namespace sympow
