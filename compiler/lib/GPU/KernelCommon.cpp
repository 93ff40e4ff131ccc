//===- KernelCommon.cpp - Pieces every generated kernel uses --------------===//

#include "KernelCommon.h"

#include "sympow/Compiler/GPU/RuntimeKinds.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace sympow::gpu_detail {

Value tokenOffset(Emitter &E, Value b, Value T, Value t, int64_t heads,
                  Value head, int64_t width) {
  Value bt = E.add(E.mul(b, T), t);
  return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(width));
}

Type elementType(MLIRContext *ctx, ElementKind kind) {
  switch (kind) {
  case ElementKind::BF16:
    return BFloat16Type::get(ctx);
  case ElementKind::F16:
    return Float16Type::get(ctx);
  case ElementKind::F32:
    return Float32Type::get(ctx);
  }
  llvm_unreachable("unknown element kind");
}

MemRefType bufferType(Type element) {
  return MemRefType::get({ShapedType::kDynamic}, element);
}

MemRefType workgroupMemRef(ArrayRef<int64_t> shape, Type element) {
  auto space = gpu::AddressSpaceAttr::get(element.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return MemRefType::get(shape, element, MemRefLayoutAttrInterface{}, space);
}

KernelArguments kernelArguments(MLIRContext *ctx,
                                const AttentionKernelSpec &spec,
                                runtime::KernelId kernel, int64_t chunk,
                                runtime::Formulation formulation) {
  runtime::LayerVariant variant = toRuntime(spec, formulation, chunk);
  KernelArguments args;
  Type elem = elementType(ctx, spec.dtype);
  Type f32 = Float32Type::get(ctx), f64 = Float64Type::get(ctx);
  for (runtime::KernelArg kind :
       runtime::layerKernelArguments(variant, kernel)) {
    args.buffers.push_back(kind);
    Type element = f32;
    switch (kind) {
    case runtime::KernelArg::Q:
    case runtime::KernelArg::K:
    case runtime::KernelArg::V:
    case runtime::KernelArg::Y:
    case runtime::KernelArg::RotatedQHalves:
    case runtime::KernelArg::RotatedKHalves:
      element = elem;
      break;
    case runtime::KernelArg::C:
    case runtime::KernelArg::Counts:
      element = f64;
      break;
    case runtime::KernelArg::ChunkStateHalves:
      element = BFloat16Type::get(ctx);
      break;
    case runtime::KernelArg::Arrivals:
      element = IntegerType::get(ctx, 64);
      break;
    case runtime::KernelArg::PartialNum:
    case runtime::KernelArg::PartialDen:
      // The recurrent kernels' accumulator: f64 for f32 inputs.
      element = spec.dtype == ElementKind::F32 ? f64 : f32;
      break;
    default:
      break;
    }
    args.types.push_back(bufferType(element));
  }
  Type i64 = IntegerType::get(ctx, 64);
  args.types.append({i64, i64});
  return args;
}

Value KernelArguments::get(gpu::GPUFuncOp fn, runtime::KernelArg kind) const {
  for (auto [i, k] : llvm::enumerate(buffers))
    if (k == kind)
      return fn.getArgument(i);
  return nullptr;
}

Value KernelArguments::seqLen(OpBuilder &b, gpu::GPUFuncOp fn) const {
  return arith::IndexCastOp::create(b, fn.getLoc(), b.getIndexType(),
                                    fn.getArgument(buffers.size() + 1));
}

} // namespace sympow::gpu_detail
