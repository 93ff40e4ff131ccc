//===- KernelCommon.cpp - Pieces every generated kernel uses --------------===//

#include "KernelCommon.h"

#include "sympow/Compiler/GPU/RuntimeKinds.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

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

void setLaunch(OpBuilder &, gpu::GPUFuncOp fn, int64_t threads,
               int64_t tokensPerBlock, int64_t gridY, int32_t minBlocksPerSM) {
  runtime::KernelLaunch launch;
  launch.block = {static_cast<uint32_t>(threads), 1, 1};
  launch.tokensPerBlock = tokensPerBlock;
  launch.gridY = gridY;
  tile::setKernelLaunch(fn, launch, minBlocksPerSM);
}

void emitThetaTable(Emitter &E, const AttentionKernelSpec &spec, Value theta,
                    Value tid, int64_t threads) {
  int64_t r = spec.effectiveRotaryDims();
  if (!r)
    return;
  double logBase = std::log(spec.rotaryBase);
  E.forLoop(tid, E.idx(r / 2), E.idx(threads), {}, [&](Value m, ValueRange) {
    Value frac = E.mul(E.indexToF64(m), E.f64(-2.0 * logBase / r));
    E.store(E.mul(E.f64(spec.rateScale), E.exp(frac)), theta, {m});
    return SmallVector<Value>{};
  });
}

std::pair<Value, Value> pairDims(Emitter &E, const AttentionKernelSpec &spec,
                                 Value m) {
  Value first = E.mul(m, E.idx(2));
  if (spec.layout != RotaryLayout::Half || !spec.rotates())
    return {first, E.add(first, E.idx(1))};
  int64_t half = spec.effectiveRotaryDims() / 2;
  Value rotated = E.ult(m, E.idx(half));
  return {E.select(rotated, m, first),
          E.select(rotated, E.add(m, E.idx(half)), E.add(first, E.idx(1)))};
}

std::pair<Value, Value> rotatePair(Emitter &E, const AttentionKernelSpec &spec,
                                   Value theta, Value m, Value count, Value x0,
                                   Value x1) {
  Type f32 = E.b.getF32Type();
  Value rotated = E.ult(m, E.idx(spec.effectiveRotaryDims() / 2));
  Value rate = E.load(theta, {E.select(rotated, m, E.idx(0))});
  Value alpha = E.mul(count, rate);
  Value turns = E.floor(E.mul(alpha, E.f64(1.0 / kTwoPi)));
  Value angle = E.convert(E.fma(turns, E.f64(-kTwoPi), alpha), f32);
  // The angle is already in [0, 2*pi): the hardware approximations
  // (__nv_fast_sinf/cosf, error ~1e-6) need no argument reduction, whose
  // slow path would cost a local-memory frame.
  auto afn = arith::FastMathFlags::afn;
  Value cos = E.select(rotated, math::CosOp::create(E.b, E.loc, angle, afn),
                       E.f32(1.0));
  Value sin = E.select(rotated, math::SinOp::create(E.b, E.loc, angle, afn),
                       E.f32(0.0));
  return {E.sub(E.mul(x0, cos), E.mul(x1, sin)),
          E.add(E.mul(x0, sin), E.mul(x1, cos))};
}

} // namespace sympow::gpu_detail
