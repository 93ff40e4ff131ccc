//===- MatrixTiles.h - Lowering of matrix tiles and dot ---------*- C++ -*-===//
//
// What TileToGPU.cpp takes from the matrix-tile lowering (TileDotToGPU.cpp,
// TileDotSplit.cpp): the types a thread holds, the patterns, and the
// tile-level rewrite of split-precision dots that runs before them.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_TILE_MATRIXTILES_H
#define SYMPOW_LIB_TILE_MATRIXTILES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace sympow::tile {

/// A matrix tile becomes the thread's fragments, an n-D vector
/// (TileMatrixAttrs.td gives its shape per layout).
void addMatrixTileConversions(mlir::TypeConverter &converter);

/// The workgroup buffer (one per element type) that block-wide reductions
/// (column_sum, row_reduce over warp columns, last_arrival's verdict) go
/// through; lowerTileKernel sizes and adds them.
using ReductionBuffers = llvm::DenseMap<mlir::Type, mlir::Value>;

/// A lowering of a block-wide op that goes through `buffers`.
template <typename Op> struct BufferedLowering : mlir::OpConversionPattern<Op> {
  BufferedLowering(const mlir::TypeConverter &converter, mlir::MLIRContext *ctx,
                   const ReductionBuffers &buffers)
      : mlir::OpConversionPattern<Op>(converter, ctx), buffers(buffers) {}
  const ReductionBuffers &buffers;
};

/// dot -> nvgpu.mma.sync m16n8k16; matrix_load/store -> nvgpu.ldmatrix or
/// per-element accesses; row_reduce -> shuffles (and `buffers`); splat
/// constants of matrix tiles. The patterns of sm_80 and sm_90a alike
/// (mma.sync); a wgmma set would be chosen here by target.
void populateMatrixTileLowering(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                mlir::ConversionTarget &target,
                                const ReductionBuffers &buffers);

/// `x` from another lane of the warp: lane ^ offset (xor), lane - offset
/// (up), lane + offset (down); a lane whose source is outside the warp gets
/// its own. 64-bit values move as two 32-bit halves (the NVVM shuffle moves
/// 32 bits).
mlir::Value shuffleLanes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         int64_t offset, mlir::gpu::ShuffleMode mode);

/// `then(b, l)` where `condition` holds: an scf.if without results (its
/// yield added), as a thread's guarded accesses take.
void emitIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value condition,
            llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> then);

/// Rewrites every `dot precision = split_bf16` in `fn` into three bf16
/// dots on hi/lo halves of its operands (tiles in, tiles out).
void expandSplitDots(mlir::gpu::GPUFuncOp fn);

} // namespace sympow::tile

#endif // SYMPOW_LIB_TILE_MATRIXTILES_H
