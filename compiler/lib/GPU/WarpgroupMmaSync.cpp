//===- WarpgroupMmaSync.cpp - Warpgroup MMA ops as mma.sync (sm_80) -------===//
//
// The same product as wgmma on a GPU without it, so that one kernel IR
// serves every target: warp w of the warpgroup takes rows 16w .. 16w + 15
// of the 64 x N result (the wgmma accumulator layout is mma.sync's per
// warp), loads its A fragment (unless A is in registers) and each 8 columns'
// B fragment with ldmatrix from the operands' canonical layouts
// (sympow/Support/WgmmaLayout.h), and multiplies with mma.sync m16n8k16.
//
//===----------------------------------------------------------------------===//

#include "WarpgroupMmaSync.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/WgmmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;

namespace sympow {
namespace {

/// WgmmaLayout's integer ops as index arithmetic.
struct IndexOps {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// `x op v` for a constant v.
  template <typename Op> Value by(Value x, int64_t v) {
    return Op::create(b, loc, x, c(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) { return by<arith::MulIOp>(x, v); }
  Value div(Value x, int64_t v) { return by<arith::DivUIOp>(x, v); }
  Value rem(Value x, int64_t v) { return by<arith::RemUIOp>(x, v); }
  Value shr(Value x, int64_t v) { return by<arith::ShRUIOp>(x, v); }
  Value shl(Value x, int64_t v) { return by<arith::ShLIOp>(x, v); }
  Value andI(Value x, int64_t v) { return by<arith::AndIOp>(x, v); }
};

/// The element index in `d`'s buffer of operand element (mn, k): its byte
/// offset from the buffer's start, swizzled there (a swizzled buffer is
/// aligned to its pattern: the descriptor's verifier).
/// A descriptor's op and the bytes the adds it went through add (16 each).
struct Described {
  tile::WarpgroupDescriptorOp op;
  Value advance; // index bytes, or null
};

Value elementIndex(IndexOps &o, Described described, bool mnMajor, Value mn,
                   Value k) {
  tile::WarpgroupDescriptorOp d = described.op;
  int64_t eb =
      cast<MemRefType>(d.getBuffer().getType()).getElementTypeBitWidth() / 8;
  Value offset = wgmma::unswizzledOffset<Value>(
      o, mn, k, mnMajor, d.getLeading(), d.getStride(), d.getSwizzle());
  Value bytes = o.add(o.mul(d.getOffset(), eb), offset);
  if (described.advance)
    bytes = o.add(bytes, described.advance);
  return o.div(wgmma::swizzled<Value>(o, bytes, d.getSwizzle()), eb);
}

/// One ldmatrix of `tiles` 8 x 8 matrices: lane l gives the row address of
/// row l % 8 of matrix l / 8 as (mn, k) of `d`'s operand.
Value loadMatrices(IndexOps &o, Described d, bool mnMajor, int64_t tiles,
                   bool transpose, Value mn, Value k, Type element) {
  auto type = VectorType::get({tiles, 2}, element);
  return nvgpu::LdMatrixOp::create(
      o.b, o.loc, type, d.op.getBuffer(),
      ValueRange{elementIndex(o, d, mnMajor, mn, k)}, transpose, tiles);
}

LogicalResult lowerMma(tile::WarpgroupMmaOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexOps o{b, loc};
  // The op behind a descriptor and the bytes its adds advance it by.
  auto descriptorOf = [&](Value v) {
    SmallVector<Value> sixteens;
    Described d{tile::WarpgroupDescriptorOp::behind(v, sixteens), Value()};
    for (Value n : sixteens) {
      Value bytes =
          o.mul(arith::IndexCastOp::create(b, loc, b.getIndexType(), n), 16);
      d.advance = d.advance ? o.add(d.advance, bytes) : bytes;
    }
    return d;
  };
  Described db = descriptorOf(op.getB()), da;
  if (!db.op || (!op.hasRegisterA() && !(da = descriptorOf(op.getA())).op))
    return op.emitOpError("needs descriptors from "
                          "sympow_tile.warpgroup_descriptor (advanced by adds "
                          "or not) to run as mma.sync before sm_90a");
  Type element = op.getInputType();
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = o.rem(thread, 32);
  Value row0 = o.mul(o.rem(o.div(thread, 32), 4), 16); // the warp's rows
  Value laneRow = o.rem(lane, 8), matrix = o.div(lane, 8);

  // A: the warp's 16 x 16 as mma.sync's fragment (matrices: rows 0-7 and
  // 8-15 of k 0-7, then of k 8-15), from registers in any shape.
  auto fragmentType = VectorType::get({4, 2}, element);
  Value a = op.getA();
  if (op.hasRegisterA() && a.getType() != fragmentType) {
    auto type = cast<VectorType>(a.getType());
    SmallVector<int64_t> strides = computeStrides(type.getShape());
    Value f = arith::ConstantOp::create(b, loc, b.getZeroAttr(fragmentType));
    for (int64_t i = 0; i < 8; ++i)
      f = vector::InsertOp::create(
          b, loc, vector::ExtractOp::create(b, loc, a, delinearize(i, strides)),
          f, ArrayRef<int64_t>{i / 2, i % 2});
    a = f;
  }
  if (!op.hasRegisterA()) {
    bool mnMajor = op.getTransposeA();
    Value rowBlock = o.mul(o.rem(matrix, 2), 8),
          kBlock = o.mul(o.div(matrix, 2), 8);
    // K-major: matrix rows are A's rows; MN-major: they are its k (the
    // transposed load puts them back).
    Value mn =
        mnMajor ? o.add(row0, rowBlock) : o.add(o.add(row0, rowBlock), laneRow);
    Value k = mnMajor ? o.add(kBlock, laneRow) : kBlock;
    a = loadMatrices(o, da, mnMajor, 4, mnMajor, mn, k, element);
  }
  // B per 8 columns j: matrices k 0-7 and 8-15 (lanes 0-15 give rows).
  bool mnMajorB = op.getTransposeB();
  Value half = o.rem(matrix, 2);
  Value acc = op.getAcc();
  auto accType = cast<VectorType>(op.getType());
  SmallVector<int64_t> strides = computeStrides(accType.getShape());
  auto at = [&](int64_t i) { return delinearize(i, strides); };
  auto pieceType = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(pieceType));
  // Static extracts and inserts only: what the NVVM lowering takes.
  Value result = arith::ConstantOp::create(b, loc, b.getZeroAttr(op.getType()));
  for (int64_t j = 0; j < op.getN() / 8; ++j) {
    // MN-major: rows are k, 8 columns each (transposed load); K-major: rows
    // are the columns, 8 k each.
    Value mn = mnMajorB ? o.c(8 * j) : o.add(o.c(8 * j), laneRow);
    Value k = mnMajorB ? o.add(o.mul(half, 8), laneRow) : o.mul(half, 8);
    Value bFrag = loadMatrices(o, db, mnMajorB, 2, mnMajorB, mn, k, element);
    // Accumulators 4j .. 4j + 3 are the m16n8 C fragment [c0 c1; c2 c3].
    Value c = zero;
    for (int64_t i = 0; op.getAccumulate() && i < 4; ++i)
      c = vector::InsertOp::create(
          b, loc, vector::ExtractOp::create(b, loc, acc, at(4 * j + i)), c,
          ArrayRef<int64_t>{i / 2, i % 2});
    Value d = nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c,
                                       ArrayRef<int64_t>{16, 8, 16});
    for (int64_t i = 0; i < 4; ++i)
      result = vector::InsertOp::create(
          b, loc,
          vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{i / 2, i % 2}),
          result, at(4 * j + i));
  }
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

} // namespace

LogicalResult lowerWarpgroupOpsToMmaSync(Operation *root) {
  SmallVector<tile::WarpgroupMmaOp> mmas;
  root->walk([&](tile::WarpgroupMmaOp op) { mmas.push_back(op); });
  for (tile::WarpgroupMmaOp op : mmas)
    if (failed(lowerMma(op)))
      return failure();
  // Nothing to order: each warp's MMAs are synchronous, ldmatrix reads
  // what stores wrote.
  SmallVector<Operation *> rest;
  root->walk([&](Operation *op) {
    if (isa<tile::WarpgroupDescriptorOp, tile::WarpgroupFenceOp,
            tile::AsyncProxyFenceOp, tile::WarpgroupCommitOp,
            tile::WarpgroupWaitOp>(op))
      rest.push_back(op);
  });
  // The adds that advanced a descriptor, now that no MMA reads them.
  std::function<void(Value)> eraseAdvances = [&](Value descriptor) {
    for (Operation *user : llvm::make_early_inc_range(descriptor.getUsers()))
      if (auto add = dyn_cast<arith::AddIOp>(user)) {
        eraseAdvances(add.getResult());
        if (add->use_empty())
          add->erase();
      }
  };
  for (Operation *op : rest) {
    if (auto wait = dyn_cast<tile::WarpgroupWaitOp>(op))
      wait.replaceAllUsesWith(wait.getAccs());
    if (isa<tile::WarpgroupDescriptorOp>(op))
      eraseAdvances(op->getResult(0));
    if (!op->use_empty())
      return op->emitOpError("is used by an op other than warpgroup_mma");
    op->erase();
  }
  return success();
}

} // namespace sympow
