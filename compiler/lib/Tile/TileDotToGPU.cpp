//===- TileDotToGPU.cpp - Matrix tiles to mma.sync fragments --------------===//
//
// A matrix tile becomes the fragments its thread holds (an n-D vector whose
// shape the layout gives, TileMatrixAttrs.td); `dot` becomes one mma.sync
// m16n8k16 per (row piece, column piece, k step); matrix loads of 16-bit dot
// operands from workgroup memory become ldmatrix, other matrix accesses one
// access per element. These patterns serve sm_80 and sm_90a alike; a wgmma
// lowering would be a second pattern set chosen by target.
// docs/TileIR.md, "Matrix tiles".
//
//===----------------------------------------------------------------------===//

#include "MatrixTiles.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/WgmmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace sympow::tile {
namespace {

/// The three kinds of matrix tile and what a thread holds of one.
enum class Role { Acc, A, B };

struct Fragments {
  Role role;
  MmaAttr mma;
  int64_t rows, cols;            // the tile
  SmallVector<int64_t, 4> shape; // the thread's vector
};

std::optional<Fragments> getFragments(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding())
    return std::nullopt;
  Fragments f;
  if (auto mma = dyn_cast<MmaAttr>(tensor.getEncoding())) {
    f.role = Role::Acc;
    f.mma = mma;
  } else if (auto operand = dyn_cast<DotOperandAttr>(tensor.getEncoding())) {
    f.role = operand.getOperand() == 0 ? Role::A : Role::B;
    f.mma = operand.getParent();
  } else {
    return std::nullopt;
  }
  f.rows = tensor.getDimSize(0);
  f.cols = tensor.getDimSize(1);
  int64_t wm = f.mma.getWarpsM(), wn = f.mma.getWarpsN();
  switch (f.role) {
  case Role::Acc:
    f.shape = {f.rows / (16 * wm), f.cols / (8 * wn), 2, 2};
    break;
  case Role::A:
    f.shape = {f.rows / (16 * wm), f.cols / 16, 4, 2};
    break;
  case Role::B:
    f.shape = {f.rows / 16, f.cols / (8 * wn), 2, 2};
    break;
  }
  return f;
}

/// Index arithmetic at one place.
struct Builder {
  OpBuilder &b;
  Location loc;
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, idx(y)) : x; }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, idx(y)).getResult();
  }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, idx(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  }
};

/// Where a thread's elements sit in the tile: element s (row-major over
/// the fragment shape) is (row + deltas[s].first, col + deltas[s].second),
/// `row` and `col` depending on the thread, the deltas constants.
struct Coordinates {
  Value row, col;
  SmallVector<std::pair<int64_t, int64_t>> deltas;
};

/// The lane's place in its warp's m16n8k16 fragments and the warp's block
/// of the tile (PTX ISA, "Matrix fragments for mma.m16n8k16").
Coordinates getCoordinates(Builder &B, const Fragments &f) {
  Value tid = gpu::ThreadIdOp::create(B.b, B.loc, gpu::Dimension::x);
  Value lane = B.rem(tid, 32), warp = B.div(tid, 32);
  int64_t wn = f.mma.getWarpsN();
  Value g = B.div(lane, 4), t2 = B.mul(B.rem(lane, 4), 2);
  auto rowBlock = [&] {
    return B.mul(f.mma.warpRow<Value>(B, warp), f.rows / f.mma.getWarpsM());
  };
  auto colBlock = [&] {
    return B.mul(f.mma.warpColumn<Value>(B, warp), f.cols / wn);
  };
  Coordinates at;
  auto [p0, p1, p2, p3] =
      std::array<int64_t, 4>{f.shape[0], f.shape[1], f.shape[2], f.shape[3]};
  for (int64_t i = 0; i < p0; ++i)
    for (int64_t j = 0; j < p1; ++j)
      for (int64_t r = 0; r < p2; ++r)
        for (int64_t c = 0; c < p3; ++c)
          switch (f.role) {
          case Role::Acc: // [i][j][row half r][column c] of 16 x 8 pieces
            at.deltas.push_back({16 * i + 8 * r, 8 * j + c});
            break;
          case Role::A: // a0..a7: (g, 2t), (g + 8, 2t), (g, 2t + 8), ...
            at.deltas.push_back(
                {16 * i + 8 * (r % 2), 16 * j + 8 * (r / 2) + c});
            break;
          case Role::B: // b0..b3: (k = 2t, n = g), (2t + 8, g)
            at.deltas.push_back({16 * i + 8 * r + c, 8 * j});
            break;
          }
  switch (f.role) {
  case Role::Acc:
    at.row = B.add(rowBlock(), g);
    at.col = B.add(colBlock(), t2);
    break;
  case Role::A:
    at.row = B.add(rowBlock(), g);
    at.col = t2;
    break;
  case Role::B:
    at.row = t2;
    at.col = B.add(colBlock(), g);
    break;
  }
  return at;
}

/// The vector of `type` from its elements in row-major order, built from
/// its innermost 1-D pieces (n-D from_elements is not lowered everywhere).
Value packFragments(OpBuilder &b, Location loc, VectorType type,
                    ArrayRef<Value> elements) {
  Value result = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  int64_t inner = type.getShape().back();
  auto pieceType = VectorType::get({inner}, type.getElementType());
  SmallVector<int64_t> position(type.getRank() - 1, 0);
  for (size_t at = 0; at < elements.size(); at += inner) {
    int64_t rest = at / inner;
    for (int64_t d = type.getRank() - 2; d >= 0; --d) {
      position[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    Value piece = vector::FromElementsOp::create(b, loc, pieceType,
                                                 elements.slice(at, inner));
    result = vector::InsertOp::create(b, loc, piece, result, position);
  }
  return result;
}

/// The elements of an n-D vector in row-major order.
SmallVector<Value> unpackFragments(OpBuilder &b, Location loc, Value v) {
  auto type = cast<VectorType>(v.getType());
  SmallVector<Value> elements;
  SmallVector<int64_t> position(type.getRank(), 0);
  for (int64_t at = 0, n = type.getNumElements(); at < n; ++at) {
    int64_t rest = at;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      position[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    elements.push_back(vector::ExtractOp::create(b, loc, v, position));
  }
  return elements;
}

/// Where a matrix access reads or writes: per element, the buffer index and
/// (with bounds) whether the element is inside.
struct Access {
  SmallVector<Value> indices, inside;
};

template <typename OpT>
Access getAccess(Builder &B, OpT op, const Fragments &f) {
  Coordinates at = getCoordinates(B, f);
  // Element (i, j) at offset + i rowStep + j colStep.
  int64_t rowStep = op.getStride(), colStep = 1;
  if (op.getTransposed()) {
    colStep = op.getStride();
    rowStep = 1;
    if constexpr (std::is_same_v<OpT, MatrixLoadOp>)
      rowStep = op.getRowStride();
  }
  // base + (row, col) -> one index per thread, plus constants per element.
  // In 8-column pieces `pieces` apart, a thread's accumulator columns are
  // 2 (lane % 4) + {0, 1} in each piece (its offsets of whole pieces).
  int64_t pieces = 0;
  if constexpr (std::is_same_v<OpT, MatrixStoreOp>)
    pieces = op.getPieces();
  // Where a warp's columns start on a piece (8 | cols / warpsN), each
  // element's piece is the thread's plus a constant.
  bool piecesAligned =
      pieces && f.role == Role::Acc && (f.cols / f.mma.getWarpsN()) % 8 == 0;
  auto inPieces = [&](Value col) {
    return B.add(B.mul(B.div(col, 8), pieces), B.rem(col, 8));
  };
  Value first = B.mul(at.row, rowStep);
  if (!pieces)
    first = B.add(first, B.mul(at.col, colStep));
  else if (piecesAligned)
    first = B.add(first, inPieces(at.col));
  first = B.add(op.getOffset(), first);
  Access access;
  for (auto [dr, dc] : at.deltas) {
    if (pieces && !piecesAligned)
      access.indices.push_back(
          B.add(B.add(first, dr * rowStep), inPieces(B.add(at.col, dc))));
    else if (pieces)
      access.indices.push_back(
          B.add(first, dr * rowStep + dc / 8 * pieces + dc % 8));
    else
      access.indices.push_back(B.add(first, dr * rowStep + dc * colStep));
    if (!op.getRows())
      continue;
    auto below = [&](Value x, int64_t d, Value bound) {
      return arith::CmpIOp::create(B.b, B.loc, arith::CmpIPredicate::ult,
                                   B.add(x, d), bound);
    };
    access.inside.push_back(
        arith::AndIOp::create(B.b, B.loc, below(at.row, dr, op.getRows()),
                              below(at.col, dc, op.getCols())));
  }
  return access;
}

bool inWorkgroupMemory(Value buffer) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
      cast<MemRefType>(buffer.getType()).getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Dot operands of 16-bit elements, from workgroup memory whose rows are
/// 16-byte aligned: one ldmatrix x4 per A fragment (16 x 16), x2 per B
/// fragment (16 x 8); `.trans` when the memory order is the fragment's
/// transpose. B stored [n][k] loads two fragments adjacent in n with one x4
/// (lanes 16-31 address the second; an odd last one is an x2, which ignores
/// them): 31 fewer instructions per key step of chunk_output. B stored
/// [k][n] keeps x2: paired, its fragments raised ptxas' registers past the
/// cap of four chunk_output programs per SM (4 and 12 bytes of spills).
Value loadWithLdmatrix(Builder &B, MatrixLoadOp op, const Fragments &f,
                       VectorType type) {
  Value tid = gpu::ThreadIdOp::create(B.b, B.loc, gpu::Dimension::x);
  Value lane = B.rem(tid, 32), warp = B.div(tid, 32);
  int64_t stride = op.getStride(), wn = f.mma.getWarpsN();
  bool transposed = op.getTransposed();
  // (memory row, memory column) each lane addresses, and per fragment
  // (p, q) its first memory row and column.
  Value laneRow, laneCol;
  std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)> fragment;
  bool trans;
  Type element = type.getElementType();
  VectorType fragType;
  if (f.role == Role::A) {
    Value block =
        B.mul(f.mma.warpRow<Value>(B, warp), f.rows / f.mma.getWarpsM());
    fragType = VectorType::get({4, 2}, element);
    if (!transposed) { // [m][k]: lanes 0-15 rows, 16-31 the same at k + 8
      laneRow = B.add(block, B.rem(lane, 16));
      laneCol = B.mul(B.div(lane, 16), 8);
      fragment = [](int64_t i, int64_t k) { return std::pair{16 * i, 16 * k}; };
    } else { // [k][m]: matrix q of x4 covers m 8 (q % 2), k 8 (q / 2)
      laneRow = B.add(B.rem(lane, 8), B.mul(B.div(lane, 16), 8));
      laneCol = B.add(block, B.mul(B.rem(B.div(lane, 8), 2), 8));
      fragment = [](int64_t i, int64_t k) { return std::pair{16 * k, 16 * i}; };
    }
    trans = transposed;
  } else {
    Value block = B.mul(f.mma.warpColumn<Value>(B, warp), f.cols / wn);
    fragType = VectorType::get({2, 2}, element);
    if (!transposed) { // [k][n]: rows k 0-15 from lanes 0-15, .trans
      laneRow = B.rem(lane, 16);
      laneCol = block;
      fragment = [](int64_t k, int64_t j) { return std::pair{16 * k, 8 * j}; };
    } else { // [n][k]: matrix 0 k 0-7, matrix 1 k 8-15; lanes 16-31 the
             // same for fragment j + 1 of a pair (n + 8)
      Value next = B.mul(B.div(lane, 16), 8);
      laneRow = B.add(block, B.add(B.rem(lane, 8), next));
      laneCol = B.mul(B.rem(B.div(lane, 8), 2), 8);
      fragment = [](int64_t k, int64_t j) { return std::pair{8 * j, 16 * k}; };
    }
    trans = !transposed;
  }
  Value first = B.add(op.getOffset(), B.add(B.mul(laneRow, stride), laneCol));
  Value result = arith::ConstantOp::create(B.b, B.loc, B.b.getZeroAttr(type));
  auto load = [&](int64_t p, int64_t q, VectorType loaded) {
    auto [r, c] = fragment(p, q);
    return nvgpu::LdMatrixOp::create(B.b, B.loc, loaded, op.getBase(),
                                     ValueRange{B.add(first, r * stride + c)},
                                     trans, loaded.getDimSize(0));
  };
  auto insert = [&](Value frag, int64_t p, int64_t q) {
    result = vector::InsertOp::create(B.b, B.loc, frag, result,
                                      ArrayRef<int64_t>{p, q});
  };
  for (int64_t p = 0; p < f.shape[0]; ++p)
    for (int64_t q = 0; q < f.shape[1]; ++q) {
      if (f.role == Role::A || !transposed || q + 1 == f.shape[1]) {
        insert(load(p, q, fragType), p, q);
        continue;
      }
      // A pair of B fragments: matrices 0-1 are fragment q, 2-3 q + 1.
      Value pair = load(p, q, VectorType::get({4, 2}, element));
      for (int64_t half : {0, 1})
        insert(vector::ExtractStridedSliceOp::create(
                   B.b, B.loc, pair, ArrayRef<int64_t>{2 * half, 0},
                   ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1}),
               p, q + half);
      ++q;
    }
  return result;
}

struct MatrixLoadLowering : OpConversionPattern<MatrixLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatrixLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Builder B{rewriter, op.getLoc()};
    Fragments f = *getFragments(op.getType());
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Type element = type.getElementType();
    if (f.role != Role::Acc && element.getIntOrFloatBitWidth() == 16 &&
        !op.getRows() && inWorkgroupMemory(op.getBase()) &&
        op.getRowStride() == 1 && op.getStride() > 0 &&
        op.getStride() * 2 % 16 == 0) {
      rewriter.replaceOp(op, loadWithLdmatrix(B, op, f, type));
      return success();
    }
    Access access = getAccess(B, op, f);
    Value zero = arith::ConstantOp::create(rewriter, op.getLoc(),
                                           rewriter.getZeroAttr(element));
    SmallVector<Value> elements;
    for (auto [s, at] : llvm::enumerate(access.indices)) {
      Value index = at; // a lambda below takes it (C++17: no bindings)
      if (access.inside.empty()) {
        elements.push_back(
            memref::LoadOp::create(rewriter, op.getLoc(), op.getBase(), index));
        continue;
      }
      auto guarded = scf::IfOp::create(
          rewriter, op.getLoc(), access.inside[s],
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(
                b, l,
                ValueRange{memref::LoadOp::create(b, l, op.getBase(), index)
                               .getResult()});
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, zero); });
      elements.push_back(guarded.getResult(0));
    }
    rewriter.replaceOp(op,
                       packFragments(rewriter, op.getLoc(), type, elements));
    return success();
  }
};

struct MatrixStoreLowering : OpConversionPattern<MatrixStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatrixStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Builder B{rewriter, op.getLoc()};
    Fragments f = *getFragments(op.getValue().getType());
    Access access = getAccess(B, op, f);
    Location loc = op.getLoc();
    SmallVector<Value> elements =
        unpackFragments(rewriter, loc, adaptor.getValue());
    if (op.getPaired()) {
      // Accumulator elements come as (c = 0, 1) pairs of adjacent columns
      // (getCoordinates): one vector store each; with an even column bound
      // the pair is inside exactly when its first element is.
      Type element = elements.front().getType();
      auto pairType = VectorType::get({2}, element);
      llvm::MaybeAlign pairAlign(2 * element.getIntOrFloatBitWidth() / 8);
      for (size_t s = 0; s < elements.size(); s += 2) {
        auto store = [&](OpBuilder &b, Location l) {
          Value pair = vector::FromElementsOp::create(
              b, l, pairType, ValueRange{elements[s], elements[s + 1]});
          vector::StoreOp::create(b, l, pair, op.getBase(),
                                  ValueRange{access.indices[s]}, false,
                                  pairAlign);
        };
        if (access.inside.empty()) {
          store(rewriter, loc);
          continue;
        }
        emitIf(rewriter, loc, access.inside[s], store);
      }
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [i, at] : llvm::enumerate(access.indices)) {
      // The lambda below takes them (C++17: no structured bindings).
      size_t s = i;
      Value index = at;
      if (access.inside.empty()) {
        memref::StoreOp::create(rewriter, loc, elements[s], op.getBase(),
                                index);
        continue;
      }
      emitIf(rewriter, loc, access.inside[s], [&](OpBuilder &b, Location l) {
        memref::StoreOp::create(b, l, elements[s], op.getBase(), index);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// One mma.sync m16n8k16 per (row piece i, column piece j, k step).
struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getPrecision() != DotPrecision::native)
      return rewriter.notifyMatchFailure(op, "split dots are expanded first");
    Location loc = op.getLoc();
    Fragments c = *getFragments(op.getType());
    int64_t steps = op.getA().getType().getDimSize(1) / 16;
    Value acc = adaptor.getAcc();
    for (int64_t i = 0; i < c.shape[0]; ++i)
      for (int64_t j = 0; j < c.shape[1]; ++j) {
        Value piece = vector::ExtractOp::create(rewriter, loc, acc,
                                                ArrayRef<int64_t>{i, j});
        for (int64_t k = 0; k < steps; ++k) {
          Value a = vector::ExtractOp::create(rewriter, loc, adaptor.getA(),
                                              ArrayRef<int64_t>{i, k});
          Value b = vector::ExtractOp::create(rewriter, loc, adaptor.getB(),
                                              ArrayRef<int64_t>{k, j});
          piece = nvgpu::MmaSyncOp::create(rewriter, loc, a, b, piece,
                                           ArrayRef<int64_t>{16, 8, 16});
        }
        acc = vector::InsertOp::create(rewriter, loc, piece, acc,
                                       ArrayRef<int64_t>{i, j});
      }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// row_reduce: a thread combines its columns of each of its rows, the four
/// lanes that share a row (the quad: lanes 4g .. 4g + 3) by xor shuffles,
/// and with several warp columns the warps of a row through `buffers`: after
/// a barrier lane 4g writes its row's value per warp column, after a second
/// every thread combines its rows' values.
struct RowReduceLowering : BufferedLowering<RowReduceOp> {
  using BufferedLowering::BufferedLowering;

  LogicalResult
  matchAndRewrite(RowReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Builder B{rewriter, loc};
    Fragments f = *getFragments(op.getType());
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    bool isMax = op.getKind() == ReduceKind::max;
    auto combine = [&](Value x, Value y) -> Value {
      if (isMax)
        return arith::MaximumFOp::create(rewriter, loc, x, y);
      return arith::AddFOp::create(rewriter, loc, x, y);
    };
    SmallVector<Value> elements =
        unpackFragments(rewriter, loc, adaptor.getSource());
    // Elements are [i][j][row half r][column c], row-major.
    int64_t RM = f.shape[0], RN = f.shape[1];
    auto at = [&](int64_t i, int64_t j, int64_t r, int64_t c) {
      return ((i * RN + j) * 2 + r) * 2 + c;
    };
    SmallVector<Value> rows; // per (i, r)
    for (int64_t i = 0; i < RM; ++i)
      for (int64_t r = 0; r < 2; ++r) {
        Value v = elements[at(i, 0, r, 0)];
        for (int64_t j = 0; j < RN; ++j)
          for (int64_t c = 0; c < 2; ++c)
            if (j || c)
              v = combine(v, elements[at(i, j, r, c)]);
        for (int64_t mask : {1, 2})
          v = combine(
              v, shuffleLanes(rewriter, loc, v, mask, gpu::ShuffleMode::XOR));
        rows.push_back(v);
      }
    int64_t wn = f.mma.getWarpsN();
    if (wn > 1) {
      Value buffer = buffers.lookup(type.getElementType());
      if (!buffer)
        return rewriter.notifyMatchFailure(op, "no reduction buffer");
      Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
      Value lane = B.rem(tid, 32), warp = B.div(tid, 32);
      Value rowBase = B.add(
          B.mul(f.mma.warpRow<Value>(B, warp), f.rows / f.mma.getWarpsM()),
          B.div(lane, 4));
      Value slot = f.mma.warpColumn<Value>(B, warp);
      Value leader = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, B.rem(lane, 4), B.idx(0));
      auto rowOf = [&](int64_t i, int64_t r) {
        return B.mul(B.add(rowBase, 16 * i + 8 * r), wn);
      };
      gpu::BarrierOp::create(rewriter, loc); // earlier readers are done
      emitIf(rewriter, loc, leader, [&](OpBuilder &b, Location l) {
        for (int64_t i = 0; i < RM; ++i)
          for (int64_t r = 0; r < 2; ++r)
            memref::StoreOp::create(b, l, rows[i * 2 + r], buffer,
                                    ValueRange{B.add(rowOf(i, r), slot)});
      });
      gpu::BarrierOp::create(rewriter, loc);
      for (int64_t i = 0; i < RM; ++i)
        for (int64_t r = 0; r < 2; ++r) {
          Value first = rowOf(i, r);
          Value v = memref::LoadOp::create(rewriter, loc, buffer, first);
          for (int64_t w = 1; w < wn; ++w)
            v = combine(v, memref::LoadOp::create(rewriter, loc, buffer,
                                                  B.add(first, w)));
          rows[i * 2 + r] = v;
        }
    }
    SmallVector<Value> result(elements.size());
    for (int64_t i = 0; i < RM; ++i)
      for (int64_t j = 0; j < RN; ++j)
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t c = 0; c < 2; ++c)
            result[at(i, j, r, c)] = rows[i * 2 + r];
    rewriter.replaceOp(op, packFragments(rewriter, loc, type, result));
    return success();
  }
};

/// matrix_range: the thread's coordinates plus each element's constant
/// delta.
struct MatrixRangeLowering : OpConversionPattern<MatrixRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatrixRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Builder B{rewriter, op.getLoc()};
    Fragments f = *getFragments(op.getType());
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Coordinates at = getCoordinates(B, f);
    bool rows = op.getDim() == 0;
    SmallVector<Value> elements;
    Type element = type.getElementType();
    for (auto [dr, dc] : at.deltas) {
      Value x = rows ? B.add(at.row, dr) : B.add(at.col, dc);
      if (!element.isIndex())
        x = arith::IndexCastOp::create(rewriter, op.getLoc(), element, x);
      elements.push_back(x);
    }
    rewriter.replaceOp(op,
                       packFragments(rewriter, op.getLoc(), type, elements));
    return success();
  }
};

/// A thread's fragments of `type` built from its own fragments `source`:
/// the piece at each index of `type`'s first `rank` dims is the piece of
/// `source` at `from(index)` (to_operand, repeat_columns: no data moves
/// between threads).
Value gatherPieces(
    OpBuilder &b, Location loc, Value source, VectorType type, int64_t rank,
    llvm::function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> from) {
  Value result = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  SmallVector<int64_t> at(rank, 0);
  ArrayRef<int64_t> shape = type.getShape().take_front(rank);
  while (true) {
    Value piece = vector::ExtractOp::create(b, loc, source, from(at));
    result = vector::InsertOp::create(b, loc, piece, result, at);
    int64_t d = rank - 1;
    while (d >= 0 && ++at[d] == shape[d])
      at[d--] = 0;
    if (d < 0)
      return result;
  }
}

/// to_operand: A fragment (i, k) of a thread is its accumulator pieces (i,
/// 2k) and (i, 2k + 1): a0 a1 = rows g, columns 2t, 2t + 1 of the first,
/// a2 a3 the same at row g + 8, a4 .. a7 those of the second (PTX ISA,
/// m16n8k16 fragments). No data moves between threads.
struct ToOperandLowering : OpConversionPattern<ToOperandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ToOperandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    // A is [i][k][q][e] (q: row half q % 2, k half q / 2); the accumulator
    // [i][j][r][c]. A slice's k step k is the source's k + first / 16.
    int64_t firstStep = op.getFirstColumn() / 16;
    rewriter.replaceOp(
        op, gatherPieces(rewriter, op.getLoc(), adaptor.getSource(), type, 3,
                         [&](ArrayRef<int64_t> at) {
                           return SmallVector<int64_t>{
                               at[0], 2 * (at[1] + firstStep) + at[2] / 2,
                               at[2] % 2};
                         }));
    return success();
  }
};

/// fragments: each thread's elements of the parts, in order, as its
/// fragment vector.
struct FragmentsLowering : OpConversionPattern<FragmentsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragmentsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    SmallVector<Value> elements;
    for (Value part : adaptor.getParts()) {
      if (isa<VectorType>(part.getType()))
        llvm::append_range(elements, unpackFragments(rewriter, loc, part));
      else
        elements.push_back(part); // one element a thread
    }
    rewriter.replaceOp(op, packFragments(rewriter, loc, type, elements));
    return success();
  }
};

/// repeat_columns: result piece (i, j) is source piece (i, j mod RN) of the
/// same thread (one warp column: a thread's columns are the same in every
/// 8-column piece).
struct RepeatColumnsLowering : OpConversionPattern<RepeatColumnsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RepeatColumnsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value source = adaptor.getSource();
    int64_t pieces = cast<VectorType>(source.getType()).getDimSize(1);
    rewriter.replaceOp(
        op, gatherPieces(rewriter, op.getLoc(), source, type, 2,
                         [&](ArrayRef<int64_t> at) {
                           return SmallVector<int64_t>{at[0], at[1] % pieces};
                         }));
    return success();
  }
};

/// A splat matrix tile constant: the same constant in every fragment.
struct MatrixConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getFragments(op.getType()))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return rewriter.notifyMatchFailure(op, "only splat tile constants");
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
    return success();
  }
};

} // namespace

void addMatrixTileConversions(TypeConverter &converter) {
  converter.addConversion([](RankedTensorType type) -> std::optional<Type> {
    std::optional<Fragments> f = getFragments(type);
    if (!f)
      return std::nullopt;
    return VectorType::get(f->shape, type.getElementType());
  });
}

namespace {

/// A warpgroup MMA on an accumulator of warpgroups side by side (mma<warps =
/// [4, g], column_major = true>): each warpgroup's B descriptor points at
/// its column block (the element at (n, 0) of its first column n in B's
/// layout); the op then runs on the thread's fragments. Other warpgroup
/// MMAs on tiles go through the element-wise lowering.
struct SideBySideWarpgroupMmaLowering
    : public OpConversionPattern<WarpgroupMmaOp> {
  SideBySideWarpgroupMmaLowering(const TypeConverter &converter,
                                 MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(WarpgroupMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getAcc().getType());
    auto mma = tile ? dyn_cast_or_null<MmaAttr>(tile.getEncoding()) : nullptr;
    if (!mma || mma.getWarpsN() == 1)
      return failure();
    // (The element-wise lowering would give every warpgroup the same
    // columns.)
    SmallVector<Value> advances;
    WarpgroupDescriptorOp d =
        WarpgroupDescriptorOp::behind(op.getB(), advances);
    if (!d)
      return op.emitOpError("of side-by-side warpgroups takes B from a "
                            "sympow_tile.warpgroup_descriptor (advanced by "
                            "adds or not): its layout places each "
                            "warpgroup's columns");
    wgmma::IntegerOps o;
    int64_t bytes = wgmma::unswizzledOffset<int64_t>(
        o, op.getN(), 0, op.getTransposeB(), d.getLeading(), d.getStride(),
        d.getSwizzle());
    if (bytes % 16)
      return op.emitOpError("puts a warpgroup's columns ")
             << bytes << " bytes on, not a multiple of 16";
    Location loc = op.getLoc();
    Builder B{rewriter, loc};
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value block = mma.warpColumn<Value>(B, B.div(tid, 32));
    // Lane 0's block, the warp's: a value ptxas sees as warp-uniform, so
    // the descriptor stays in uniform registers (CUTLASS's
    // canonical_warp_group_idx) instead of moving there before each MMA.
    Type i32 = rewriter.getI32Type();
    block = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        shuffleLanes(rewriter, loc,
                     arith::IndexCastOp::create(rewriter, loc, i32, block), 0,
                     gpu::ShuffleMode::IDX));
    // B advanced by the block's bytes (the descriptor's start address).
    Value b = arith::AddIOp::create(
        rewriter, loc, adaptor.getB(),
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                   B.mul(block, bytes / 16)));
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<WarpgroupMmaOp>(
        op, type, adaptor.getA(), b, adaptor.getAcc(), op.getInputType(),
        op.getTransposeA(), op.getTransposeB(), op.getAccumulate());
    return success();
  }
};

} // namespace

void populateMatrixTileLowering(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                ConversionTarget &target,
                                const ReductionBuffers &buffers) {
  target.addLegalDialect<nvgpu::NVGPUDialect>();
  patterns.add<DotLowering, MatrixLoadLowering, MatrixStoreLowering,
               MatrixConstantLowering, MatrixRangeLowering, ToOperandLowering,
               FragmentsLowering, RepeatColumnsLowering,
               SideBySideWarpgroupMmaLowering>(converter,
                                               patterns.getContext());
  patterns.add<RowReduceLowering>(converter, patterns.getContext(), buffers);
}

} // namespace sympow::tile
