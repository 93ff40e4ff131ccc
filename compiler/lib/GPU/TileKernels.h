//===- TileKernels.h - Building kernels in the tile IR ----------*- C++ -*-===//
//
// What every kernel written in the tile IR (docs/TileIR.md) starts from: a
// gpu.func with the kernel ABI's arguments and its #sympow_tile.kernel
// launch, and a builder of 1-D blocked tiles (`threads` threads, R adjacent
// elements each) for its body. Used by chunk_scan and the recurrent kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_TILEKERNELS_H
#define SYMPOW_LIB_GPU_TILEKERNELS_H

#include "Emitter.h"
#include "KernelCommon.h"

#include "sympow/Compiler/Tile/TileDialect.h"

namespace sympow::gpu_detail {

using mlir::Type;
using mlir::Value;

/// Tiles of one kernel: `threads` threads, R elements each.
struct Tiles {
  mlir::OpBuilder &b;
  mlir::Location loc;
  Emitter &E;
  int64_t threads;

  mlir::RankedTensorType type(Type element, int64_t perThread = 1);
  /// The tile of x's type and layout with elements `element`.
  Type like(Value x, Type element);
  Value splat(Value scalar, int64_t perThread = 1);
  Value index(int64_t v, int64_t perThread = 1);
  Value constant(Type element, double v, int64_t perThread = 1);
  Value range(int64_t perThread = 1);
  /// base[at] where `mask` (null: everywhere), 0 elsewhere.
  Value load(Value base, Value at, Value mask, bool contiguous = false);
  void store(Value x, Value base, Value at, Value mask,
             bool contiguous = false);
  Value expand(Value x, int64_t perThread);
  Value columnSum(Value x, int64_t columns);
  Value convert(Value x, Type element);
  Value logicalAnd(Value x, Value y);
  Value eq(Value x, Value y);
};

/// A tile kernel `name` with the kernel ABI's arguments and the given
/// workgroup arrays; the builder is left at the start of its body.
mlir::gpu::GPUFuncOp createTileKernel(mlir::OpBuilder &b,
                                      mlir::gpu::GPUModuleOp module,
                                      const AttentionKernelSpec &spec,
                                      llvm::StringRef name, int64_t threads,
                                      llvm::ArrayRef<int64_t> grid,
                                      llvm::ArrayRef<Type> workgroup,
                                      gpu_detail::KernelArguments &args);

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_TILEKERNELS_H
