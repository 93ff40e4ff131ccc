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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// Marks the bulk copies that warp 0's lanes issue together before sm_90
/// (onLaneZero).
constexpr llvm::StringLiteral kWarpCopy = "sympow.warp_copy";

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
      // of its cluster's; .shared::cta needs PTX 8.6), as inline PTX with
      // the destination and the barrier as 32-bit shared addresses: NVVM's
      // op takes a 64-bit cluster pointer, whose high half (SR_SWINHI)
      // doubled each copy's uniform registers, and chunk_output's unrolled
      // copies then pushed its loop-invariant wgmma descriptors out of
      // them into 16 more vector registers.
      auto shared = [&](Value buffer, Value offset) {
        return arith::TruncIOp::create(
            rewriter, loc, rewriter.getI32Type(),
            gpu_detail::byteAddress(rewriter, loc, buffer, offset));
      };
      Value src = gpu_detail::byteAddress(rewriter, loc, op.getSource(),
                                          op.getSourceStart());
      MLIRContext *ctx = op.getContext();
      LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange{},
          ValueRange{shared(op.getDest(), op.getDestStart()), src,
                     i32Of(rewriter, loc, op.getBytes()),
                     shared(op.getBarriers(), op.getIndex())},
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
          "[$0], [$1], $2, [$3];",
          "r,l,r,r,~{memory}", /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      rewriter.eraseOp(op);
      return success();
    }
    // 16 bytes at a time: `run` elements; from warp 0's lanes together
    // (kWarpCopy), lane l taking pieces l, l + 32, ...: where the size is
    // a constant, ceil(pieces / 32) rounds of a constant count (LLVM
    // unrolls them, and drops the bound test where 32 divides the pieces).
    auto type = cast<MemRefType>(op.getSource().getType());
    int64_t run = 128 / type.getElementTypeBitWidth();
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value pieces =
        arith::DivUIOp::create(rewriter, loc, op.getBytes(), index(16));
    bool warp = op->hasAttr(kWarpCopy);
    Value lane =
        warp ? arith::RemUIOp::create(
                   rewriter, loc,
                   gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x),
                   index(32))
                   .getResult()
             : index(0);
    int64_t lanes = warp ? 32 : 1;
    std::optional<int64_t> bytes = getConstantIntValue(op.getBytes());
    Value rounds =
        bytes ? index((*bytes / 16 + lanes - 1) / lanes)
              : arith::CeilDivUIOp::create(rewriter, loc, pieces, index(lanes))
                    .getResult();
    // Repeated copies (the starts advanced by the strides) as an outer
    // loop: the thread's cp.asyncs of all of them arrive once, after it.
    auto repeats = scf::ForOp::create(rewriter, loc, index(0),
                                      index(op.getRepeat()), index(1));
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(repeats.getBody());
      Value r = repeats.getInductionVar();
      Value source = arith::AddIOp::create(
          rewriter, loc, op.getSourceStart(),
          arith::MulIOp::create(rewriter, loc, r, index(op.getSourceStride())));
      Value dest = arith::AddIOp::create(
          rewriter, loc, op.getDestStart(),
          arith::MulIOp::create(rewriter, loc, r, index(op.getDestStride())));
      auto loop = scf::ForOp::create(rewriter, loc, index(0), rounds, index(1));
      rewriter.setInsertionPointToStart(loop.getBody());
      Value piece = arith::AddIOp::create(
          rewriter, loc, lane,
          arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                                index(lanes)));
      auto inside = scf::IfOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, piece,
                                pieces),
          /*else=*/false);
      rewriter.setInsertionPointToStart(inside.thenBlock());
      Value shift = arith::MulIOp::create(rewriter, loc, piece, index(run));
      Value to = arith::AddIOp::create(rewriter, loc, dest, shift);
      Value from = arith::AddIOp::create(rewriter, loc, source, shift);
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

/// Within `region`, run by every lane of warp 0 (an elected region before
/// sm_90): the mbarrier ops and stores under `lane == 0`, so that each
/// happens once; the bulk copies marked to be shared by the lanes. The
/// region's arithmetic is uniform scalars (ElectedOp's verifier), the same
/// on every lane.
void onLaneZero(Operation *region) {
  SmallVector<Operation *> once;
  region->walk([&](Operation *op) {
    if (isa<tile::BulkCopyOp>(op))
      op->setAttr(kWarpCopy, UnitAttr::get(op->getContext()));
    else if (isa<tile::MbarrierInitOp, tile::MbarrierArriveOp, memref::StoreOp>(
                 op))
      once.push_back(op);
  });
  for (Operation *op : once) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value lane = arith::RemUIOp::create(
        b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
        arith::ConstantIndexOp::create(b, loc, 32));
    auto first = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                              arith::ConstantIndexOp::create(b, loc, 0)),
        /*else=*/false);
    op->moveBefore(first.thenBlock()->getTerminator());
  }
}

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
    // Bulk copies and transaction counts came with sm_90. There repeated
    // copies become a loop of single ones; before, each thread's cp.asyncs
    // of all the repeats arrive once (BulkCopyLowering).
    bool bulk = chip.rfind("sm_9", 0) == 0 || chip.rfind("sm_1", 0) == 0;
    SmallVector<tile::BulkCopyOp> repeated;
    getOperation()->walk([&](tile::BulkCopyOp op) { repeated.push_back(op); });
    for (tile::BulkCopyOp op : repeated)
      if (bulk)
        op.expandRepeats();
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
      Value warp = arith::DivUIOp::create(
          b, loc, thread, arith::ConstantIndexOp::create(b, loc, 32));
      if (!bulk) {
        // Warp 0, whose lanes share each copy's 16-byte pieces (one thread
        // issued a chunk_output step's 576 cp.asyncs in turn while the
        // other warps waited); the region's other effects on lane 0.
        Operation *region = op.inlineUnder(
            b, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                     zero));
        onLaneZero(region);
        continue;
      }
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
