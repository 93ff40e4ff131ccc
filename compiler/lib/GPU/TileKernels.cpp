//===- TileKernels.cpp - Building kernels in the tile IR ------------------===//

#include "TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace sympow::gpu_detail {

RankedTensorType Tiles::type(Type element, int64_t perThread) {
  return RankedTensorType::get(
      {threads * perThread}, element,
      tile::BlockedAttr::get(b.getContext(), threads, perThread));
}

Type Tiles::like(Value x, Type element) {
  return tile::withElementType(x.getType(), element);
}

Value Tiles::splat(Value scalar, int64_t perThread) {
  return tile::SplatOp::create(b, loc, type(scalar.getType(), perThread),
                               scalar);
}

Value Tiles::index(int64_t v, int64_t perThread) {
  return splat(E.idx(v), perThread);
}

Value Tiles::constant(Type element, double v, int64_t perThread) {
  return splat(E.fconst(element, v), perThread);
}

Value Tiles::range(int64_t perThread) {
  return tile::RangeOp::create(b, loc, type(b.getIndexType(), perThread));
}

Value Tiles::load(Value base, Value at, Value mask, bool contiguous) {
  Type element = cast<MemRefType>(base.getType()).getElementType();
  auto result = cast<RankedTensorType>(like(at, element));
  Value other;
  if (mask)
    other = tile::SplatOp::create(b, loc, result, E.fconst(element, 0.0));
  auto op = tile::LoadOp::create(b, loc, result, base, at, mask, other);
  if (contiguous)
    op.setContiguous(true);
  return op;
}

void Tiles::store(Value x, Value base, Value at, Value mask, bool contiguous) {
  auto op = tile::StoreOp::create(b, loc, x, base, at, mask);
  if (contiguous)
    op.setContiguous(true);
}

Value Tiles::expand(Value x, int64_t perThread) {
  if (perThread == 1)
    return x;
  return tile::ExpandOp::create(
      b, loc,
      type(cast<RankedTensorType>(x.getType()).getElementType(), perThread), x);
}

Value Tiles::columnSum(Value x, int64_t columns) {
  return tile::ColumnSumOp::create(b, loc, x.getType(), x,
                                   b.getI64IntegerAttr(columns));
}

Value Tiles::convert(Value x, Type element) {
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  auto to = cast<FloatType>(element);
  if (from == to)
    return x;
  if (from.getWidth() == to.getWidth())
    return convert(convert(x, b.getF32Type()), element);
  Type type = like(x, element);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, type, x);
  return arith::TruncFOp::create(b, loc, type, x);
}

Value Tiles::logicalAnd(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}

Value Tiles::eq(Value x, Value y) {
  return E.cmpi(arith::CmpIPredicate::eq, x, y);
}

gpu::GPUFuncOp createTileKernel(OpBuilder &b, gpu::GPUModuleOp module,
                                const AttentionKernelSpec &spec, StringRef name,
                                int64_t threads, ArrayRef<int64_t> grid,
                                ArrayRef<Type> workgroup,
                                gpu_detail::KernelArguments &args) {
  MLIRContext *ctx = b.getContext();
  ctx->getOrLoadDialect<tile::TileDialect>();
  b.setInsertionPointToEnd(module.getBody());
  args = gpu_detail::kernelArguments(ctx, spec, name);
  auto fn = gpu::GPUFuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(args.types, {}),
                                   TypeRange(workgroup));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(tile::TileDialect::getKernelAttrName(),
              tile::KernelAttr::get(ctx, threads, grid));
  b.setInsertionPointToStart(&fn.getBody().front());
  return fn;
}

} // namespace sympow::gpu_detail
