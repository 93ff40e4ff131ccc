//===- LowerWarpgroupMma.cpp - Warpgroup MMA ops to NVVM (sm_90a) ---------===//
//
// The sympow_tile.warpgroup_* ops of a distributed kernel become NVVM's
// wgmma ops: the descriptor from the buffer's address in the workgroup
// window, the MMA on an !llvm.struct of the thread's accumulators, and the
// wait as inline PTX that also takes and returns the accumulators, so that
// no read of them is scheduled before it (CUTLASS's
// warpgroup_fence_operand does the same).
//
//===----------------------------------------------------------------------===//

#include "BufferAddress.h"
#include "WarpgroupMmaSync.h"

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLOWERWARPGROUPMMA
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

/// The elements of `vectors` (any shape) as one flat list.
SmallVector<Value> flatten(OpBuilder &b, Location loc, ValueRange vectors) {
  SmallVector<Value> floats;
  for (Value v : vectors) {
    auto type = cast<VectorType>(v.getType());
    SmallVector<int64_t> strides = computeStrides(type.getShape());
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      floats.push_back(
          vector::ExtractOp::create(b, loc, v, delinearize(i, strides)));
  }
  return floats;
}

/// `floats` back into vectors of `types`.
SmallVector<Value> unflatten(OpBuilder &b, Location loc, TypeRange types,
                             ArrayRef<Value> floats) {
  SmallVector<Value> vectors;
  size_t next = 0;
  for (Type t : types) {
    auto type = cast<VectorType>(t);
    SmallVector<int64_t> strides = computeStrides(type.getShape());
    Value v = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      v = vector::InsertOp::create(b, loc, floats[next++], v,
                                   delinearize(i, strides));
    vectors.push_back(v);
  }
  return vectors;
}

Value toStruct(OpBuilder &b, Location loc, ArrayRef<Value> floats,
               LLVM::LLVMStructType type) {
  Value s = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, f] : llvm::enumerate(floats))
    s = LLVM::InsertValueOp::create(b, loc, s, f, i);
  return s;
}

SmallVector<Value> fromStruct(OpBuilder &b, Location loc, Value s,
                              size_t count) {
  SmallVector<Value> floats;
  for (size_t i = 0; i < count; ++i)
    floats.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
  return floats;
}

LLVM::LLVMStructType floatStruct(MLIRContext *ctx, size_t count) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(count, Float32Type::get(ctx)));
}

struct DescriptorLowering : OpRewritePattern<tile::WarpgroupDescriptorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::WarpgroupDescriptorOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A workgroup pointer as an integer is its address in the window. The
    // buffer's descriptor, then the offset's 16-byte units added to the
    // start address (bits 0-13): window addresses stay below 2^18 bytes, so
    // no carry leaves the field, and a descriptor whose offset changes in a
    // loop (a buffer per step) is the loop-invariant one plus a shift, not
    // the whole encoding again (50 uniform instructions per warp and step
    // in chunk_state_pass).
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value base = op.encode(
        rewriter, gpu_detail::byteAddress(rewriter, loc, op.getBuffer(), zero));
    int64_t elementBytes =
        cast<MemRefType>(op.getBuffer().getType()).getElementTypeBitWidth() / 8;
    Value sixteens = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI64Type(),
        arith::DivUIOp::create(
            rewriter, loc,
            arith::MulIOp::create(
                rewriter, loc, op.getOffset(),
                arith::ConstantIndexOp::create(rewriter, loc, elementBytes)),
            arith::ConstantIndexOp::create(rewriter, loc, 16)));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, base, sixteens);
    return success();
  }
};

/// The MMA with A in registers as inline PTX: NVVM's wgmma.mma_async
/// takes A only through a descriptor. Operands: the accumulators (outputs
/// tied to inputs), A's four 32-bit registers, B's descriptor.
Value registerAMma(PatternRewriter &rewriter, tile::WarpgroupMmaOp op,
                   ArrayRef<Value> floats) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  size_t n = floats.size();
  Type i32 = rewriter.getI32Type();
  SmallVector<Value> operands(floats.begin(), floats.end());
  // A's 8 elements as 4 registers of 2.
  SmallVector<Value> a = flatten(rewriter, loc, op.getA());
  auto pair = VectorType::get({2}, op.getInputType());
  for (int64_t r = 0; r < 4; ++r)
    operands.push_back(LLVM::BitcastOp::create(
        rewriter, loc, i32,
        unflatten(rewriter, loc, pair, {a[2 * r], a[2 * r + 1]})[0]));
  operands.push_back(op.getB());
  std::string constraints, d,
      input = op.getInputType().isBF16() ? "bf16" : "f16";
  for (size_t i = 0; i < n; ++i) {
    constraints += "=f,";
    d += (i ? ", $" : "$") + std::to_string(i);
  }
  for (size_t i = 0; i < n; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  auto at = [&](size_t i) { return "$" + std::to_string(i); };
  std::string text =
      "{\n.reg .pred p;\nsetp.ne.b32 p, " +
      std::string(op.getAccumulate() ? "1" : "0") +
      ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(op.getN()) +
      "k16.f32." + input + "." + input + " {" + d + "}, {" + at(2 * n) + ", " +
      at(2 * n + 1) + ", " + at(2 * n + 2) + ", " + at(2 * n + 3) + "}, " +
      at(2 * n + 4) + ", p, 1, 1, " + (op.getTransposeB() ? "1" : "0") + ";\n}";
  return LLVM::InlineAsmOp::create(
             rewriter, loc, floatStruct(ctx, n), operands, text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

struct MmaLowering : OpRewritePattern<tile::WarpgroupMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::WarpgroupMmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    SmallVector<Value> floats = flatten(rewriter, loc, op.getAcc());
    LLVM::LLVMStructType type = floatStruct(ctx, floats.size());
    if (op.hasRegisterA()) {
      rewriter.replaceOp(
          op, unflatten(rewriter, loc, op.getType(),
                        fromStruct(rewriter, loc,
                                   registerAMma(rewriter, op, floats),
                                   floats.size())));
      return success();
    }
    auto input = NVVM::WGMMATypesAttr::get(ctx, op.getInputType().isBF16()
                                                    ? NVVM::WGMMATypes::bf16
                                                    : NVVM::WGMMATypes::f16);
    auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    // imm-trans-a is 1 for layout col; imm-trans-b is 1 for layout row
    // (NVVM's convention: a K-major B is "col").
    auto layout = [&](bool row) {
      return NVVM::MMALayoutAttr::get(ctx, row ? NVVM::MMALayout::row
                                               : NVVM::MMALayout::col);
    };
    Value mma = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, type, toStruct(rewriter, loc, floats, type), op.getA(),
        op.getB(), NVVM::MMAShapeAttr::get(ctx, 64, op.getN(), 16), input,
        input, NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, op.getAccumulate()
                                              ? NVVM::WGMMAScaleOut::one
                                              : NVVM::WGMMAScaleOut::zero),
        one, one, layout(!op.getTransposeA()), layout(op.getTransposeB()),
        /*satfinite=*/nullptr);
    rewriter.replaceOp(
        op, unflatten(rewriter, loc, op.getType(),
                      fromStruct(rewriter, loc, mma, floats.size())));
    return success();
  }
};

struct WaitLowering : OpRewritePattern<tile::WarpgroupWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::WarpgroupWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getAccs().empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> floats = flatten(rewriter, loc, op.getAccs());
    // Each float an output tied to its input ("=f" ... "0" ...).
    std::string constraints;
    for (size_t i = 0; i < floats.size(); ++i)
      constraints += "=f,";
    for (size_t i = 0; i < floats.size(); ++i)
      constraints += std::to_string(i) + ",";
    constraints += "~{memory}";
    LLVM::LLVMStructType type = floatStruct(op.getContext(), floats.size());
    auto wait = LLVM::InlineAsmOp::create(
        rewriter, loc, type, floats,
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";",
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(op.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    rewriter.replaceOp(
        op,
        unflatten(rewriter, loc, op.getResultTypes(),
                  fromStruct(rewriter, loc, wait.getResult(0), floats.size())));
    return success();
  }
};

struct LowerWarpgroupMma
    : impl::SympowLowerWarpgroupMmaBase<LowerWarpgroupMma> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult tiles = getOperation()->walk([](Operation *op) {
      if (isa<tile::WarpgroupMmaOp, tile::WarpgroupWaitOp>(op) &&
          !tile::isThreadLevel(op)) {
        op->emitOpError("is lowered on a thread's vectors (lower the tile "
                        "kernel first)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (tiles.wasInterrupted())
      return signalPassFailure();
    // wgmma is sm_90a's alone ("a": the architecture-specific features).
    if (chip != "sm_90a") {
      if (failed(lowerWarpgroupOpsToMmaSync(getOperation())))
        signalPassFailure();
      return;
    }
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<DescriptorLowering, MmaLowering, WaitLowering>(ctx);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // The operand-free ops map one to one.
    getOperation()->walk([](Operation *op) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (isa<tile::WarpgroupFenceOp>(op))
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
      else if (isa<tile::WarpgroupCommitOp>(op))
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
      else if (isa<tile::AsyncProxyFenceOp>(op))
        NVVM::FenceProxyOp::create(
            b, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(b.getContext(),
                                       NVVM::SharedSpace::shared_cta));
      else
        return;
      op->erase();
    });
  }
};

} // namespace
} // namespace sympow
