//===- TensorBuilder.cpp - Building tensor IR with mixed sizes ------------===//

#include "TensorBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace sympow;

OpFoldResult TensorBuilder::dim(Value value, int64_t index) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(index))
    return constant(type.getDimSize(index));
  return tensor::DimOp::create(b, value, index).getResult();
}

OpFoldResult TensorBuilder::constant(int64_t size) {
  return b.getIndexAttr(size);
}

Value TensorBuilder::toValue(OpFoldResult size) {
  return getValueOrCreateConstantIndexOp(b, b.getLoc(), size);
}

OpFoldResult TensorBuilder::mul(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(*cx * *cy);
  if (cy && *cy == 1)
    return x;
  return arith::MulIOp::create(b, toValue(x), toValue(y)).getResult();
}

OpFoldResult TensorBuilder::sub(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(*cx - *cy);
  return arith::SubIOp::create(b, toValue(x), toValue(y)).getResult();
}

OpFoldResult TensorBuilder::ceilDiv(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant((*cx + *cy - 1) / *cy);
  return arith::CeilDivSIOp::create(b, toValue(x), toValue(y)).getResult();
}

RankedTensorType TensorBuilder::type(const Sizes &sizes, Type element) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, element);
}

Value TensorBuilder::empty(const Sizes &sizes, Type element) {
  return tensor::EmptyOp::create(b, sizes, element);
}

Value TensorBuilder::zeros(const Sizes &sizes, Type element) {
  Value zero = arith::ConstantOp::create(b, b.getZeroAttr(element));
  return linalg::FillOp::create(b, ValueRange{zero},
                                ValueRange{empty(sizes, element)})
      .getResult(0);
}

Sizes TensorBuilder::sizesOf(Value value) {
  Sizes sizes;
  for (int64_t i = 0, e = cast<RankedTensorType>(value.getType()).getRank();
       i < e; ++i)
    sizes.push_back(dim(value, i));
  return sizes;
}

Value TensorBuilder::padTokens(Value value, OpFoldResult length) {
  auto type = cast<RankedTensorType>(value.getType());
  OpFoldResult extra = sub(length, dim(value, 1));
  if (getConstantIntValue(extra) == 0)
    return value;
  Sizes sizes = sizesOf(value);
  sizes[1] = length;
  Sizes low(type.getRank(), constant(0)), high = low;
  high[1] = extra;
  Value zero =
      arith::ConstantOp::create(b, b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(
      b, TensorBuilder::type(sizes, type.getElementType()), value, low, high,
      zero);
}

Value TensorBuilder::splitChunks(Value value, OpFoldResult batch,
                                 OpFoldResult chunks, int64_t chunkSize) {
  auto type = cast<RankedTensorType>(value.getType());
  Sizes expanded = {batch, chunks, constant(chunkSize)};
  SmallVector<ReassociationIndices> expand = {{0}, {1, 2}};
  SmallVector<ReassociationIndices> collapse = {{0, 1}, {2}};
  for (int64_t i = 2; i < type.getRank(); ++i) {
    expanded.push_back(dim(value, i));
    expand.push_back({i + 1});
    collapse.push_back({i + 1});
  }
  Value split = tensor::ExpandShapeOp::create(
      b, TensorBuilder::type(expanded, type.getElementType()), value, expand,
      expanded);
  return tensor::CollapseShapeOp::create(b, split, collapse);
}

Value TensorBuilder::unflattenBatch(Value value, OpFoldResult batch,
                                    OpFoldResult chunks) {
  auto type = cast<RankedTensorType>(value.getType());
  Sizes expanded = {batch, chunks};
  SmallVector<ReassociationIndices> expand = {{0, 1}};
  for (int64_t i = 1; i < type.getRank(); ++i) {
    expanded.push_back(dim(value, i));
    expand.push_back({i + 1});
  }
  return tensor::ExpandShapeOp::create(
      b, TensorBuilder::type(expanded, type.getElementType()), value, expand,
      expanded);
}

Value TensorBuilder::flattenBatch(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> collapse = {{0, 1}};
  for (int64_t i = 2; i < type.getRank(); ++i)
    collapse.push_back({i});
  return tensor::CollapseShapeOp::create(b, value, collapse);
}

Value TensorBuilder::sliceTokens(Value value, OpFoldResult offset,
                                 OpFoldResult length) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  Sizes offsets(rank, constant(0)), sizes = sizesOf(value),
                                    strides(rank, constant(1));
  offsets[1] = offset;
  sizes[1] = length;
  return tensor::ExtractSliceOp::create(b, value, offsets, sizes, strides);
}

Value TensorBuilder::insertTokens(Value part, Value into, OpFoldResult offset) {
  int64_t rank = cast<RankedTensorType>(part.getType()).getRank();
  Sizes offsets(rank, constant(0)), sizes = sizesOf(part),
                                    strides(rank, constant(1));
  offsets[1] = offset;
  return tensor::InsertSliceOp::create(b, part, into, offsets, sizes, strides);
}

Value TensorBuilder::convert(Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  Type from = type.getElementType();
  if (from == element)
    return value;
  RankedTensorType to = type.clone(element);
  if (from.getIntOrFloatBitWidth() < element.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, to, value);
  return arith::TruncFOp::create(b, to, value);
}
