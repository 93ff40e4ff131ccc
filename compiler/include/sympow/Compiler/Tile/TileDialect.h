//===- TileDialect.h - The sympow_tile dialect ------------------*- C++ -*-===//
//
// Tiles with explicit layouts, the kernel layer of the compiler
// (docs/TileIR.md), and the lowering of tile kernels to plain gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEDIALECT_H
#define SYMPOW_COMPILER_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <utility>

#include "sympow/Compiler/Tile/TileDialect.h.inc"

#include "sympow/Compiler/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sympow/Compiler/Tile/TileAttrs.h.inc"

namespace sympow::tile {
/// `tile` (a ranked tensor) with its shape and encoding, elements `element`.
mlir::Type withElementType(mlir::Type tile, mlir::Type element);
/// The layout of `type` if it is a tile, else null.
BlockedAttr getLayout(mlir::Type type);
/// The threads a tile of `type` is spread over (any tile layout), or 0 if it
/// is not a tile.
int64_t getTileThreads(mlir::Type type);
} // namespace sympow::tile

#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileOps.h.inc"
#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileDotOps.h.inc"
#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileWarpgroupOps.h.inc"
#define GET_OP_CLASSES
#include "sympow/Compiler/Tile/TileBulkCopyOps.h.inc"

namespace sympow::tile {

/// Lowers the tile kernel `fn` (a gpu.func with `sympow_tile.kernel`) in
/// place: tiles become each thread's elements, program ids block ids, and
/// the kernel attribute the launch metadata (`sympow.launch`,
/// docs/KernelABI.md). The pass `--sympow-convert-tile-to-gpu` runs it on
/// every tile kernel.
mlir::LogicalResult lowerTileKernel(mlir::gpu::GPUFuncOp fn);

/// An f32 tile `x` as bf16 halves hi = bf16(x), lo = bf16(x - hi), about 16
/// significant bits together: the split of `dot precision = split_bf16`,
/// for kernels that split an operand where they build it.
std::pair<mlir::Value, mlir::Value>
splitBf16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Whether `op` is sympow_tile.exp2_ftz or log2_ftz: element-wise ops that
/// outlive the distribution (on a thread's scalars and vectors) for each
/// target to lower (--sympow-lower-flush-math, the emulator's own).
bool isFlushMath(mlir::Operation *op);

/// The buffers of a copy from global into workgroup memory (async_copy,
/// bulk_copy): the same element type, `dest` in workgroup memory, `source`
/// not.
mlir::LogicalResult verifyCopyBuffers(mlir::Operation *op, mlir::Value source,
                                      mlir::Value dest);

/// Whether `op` is a sympow_tile op that takes a thread's scalars and
/// vectors, not tiles: the flushing exp2/log2 and the warpgroup MMA ops
/// (each target lowers them after the distribution).
bool isThreadLevel(mlir::Operation *op);

} // namespace sympow::tile

#endif // SYMPOW_COMPILER_TILE_TILEDIALECT_H
