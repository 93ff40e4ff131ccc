//===- TensorBuilder.h - Building tensor IR with mixed sizes ----*- C++ -*-===//
//
// The decomposition works with sizes that are static or dynamic (B and T):
// OpFoldResult everywhere, folded to constants where both sides are known.
// This wraps the few tensor/linalg constructions it needs.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TRANSFORMS_TENSORBUILDER_H
#define SYMPOW_COMPILER_TRANSFORMS_TENSORBUILDER_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"

namespace sympow {

using Sizes = llvm::SmallVector<mlir::OpFoldResult>;

class TensorBuilder {
public:
  explicit TensorBuilder(mlir::ImplicitLocOpBuilder &b) : b(b) {}

  mlir::ImplicitLocOpBuilder &builder() { return b; }

  /// Size `index` of tensor `value`: a constant if static, else tensor.dim.
  mlir::OpFoldResult dim(mlir::Value value, int64_t index);
  mlir::OpFoldResult constant(int64_t size);
  mlir::Value toValue(mlir::OpFoldResult size);

  mlir::OpFoldResult mul(mlir::OpFoldResult a, mlir::OpFoldResult b);
  mlir::OpFoldResult sub(mlir::OpFoldResult a, mlir::OpFoldResult b);
  mlir::OpFoldResult ceilDiv(mlir::OpFoldResult a, mlir::OpFoldResult b);

  static mlir::RankedTensorType type(const Sizes &sizes, mlir::Type element);

  /// tensor.empty and a zero-filled tensor of the given sizes.
  mlir::Value empty(const Sizes &sizes, mlir::Type element);
  mlir::Value zeros(const Sizes &sizes, mlir::Type element);

  /// Pads dim 1 (tokens) of `value` with zeros up to `length`.
  mlir::Value padTokens(mlir::Value value, mlir::OpFoldResult length);
  /// [B, N*C, ...] -> [B*N, C, ...]: every chunk becomes a batch entry.
  mlir::Value splitChunks(mlir::Value value, mlir::OpFoldResult batch,
                          mlir::OpFoldResult chunks, int64_t chunkSize);
  /// [B*N, ...] -> [B, N, ...].
  mlir::Value unflattenBatch(mlir::Value value, mlir::OpFoldResult batch,
                             mlir::OpFoldResult chunks);
  /// [B, N, ...] -> [B*N, ...].
  mlir::Value flattenBatch(mlir::Value value);

  /// value[:, offset : offset + length] along dim 1.
  mlir::Value sliceTokens(mlir::Value value, mlir::OpFoldResult offset,
                          mlir::OpFoldResult length);
  /// Writes `part` into `into` at `offset` along dim 1.
  mlir::Value insertTokens(mlir::Value part, mlir::Value into,
                           mlir::OpFoldResult offset);

  /// Converts a float tensor to `element` (extf/truncf), if it differs.
  mlir::Value convert(mlir::Value value, mlir::Type element);

  /// Sizes of all dims of a tensor value.
  Sizes sizesOf(mlir::Value value);

private:
  mlir::ImplicitLocOpBuilder &b;
};

} // namespace sympow

#endif // SYMPOW_COMPILER_TRANSFORMS_TENSORBUILDER_H
