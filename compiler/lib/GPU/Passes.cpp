//===- Passes.cpp - Kernel building, bf16 mma lowering, binary checks -----===//

#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWBUILDATTENTIONKERNEL
#define GEN_PASS_DEF_SYMPOWLOWERBF16MMASYNC
#define GEN_PASS_DEF_SYMPOWCHECKGPUBINARIES
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

/// Parses an enum option; on failure reports the allowed spellings.
template <typename Enum>
FailureOr<Enum> parseEnum(Operation *op, StringRef option, StringRef value,
                          std::optional<Enum> (*symbolize)(StringRef),
                          StringRef allowed) {
  if (std::optional<Enum> e = symbolize(value))
    return *e;
  op->emitError() << "unknown " << option << " '" << value
                  << "': expected one of " << allowed;
  return failure();
}

std::optional<AttentionPath> symbolizePath(StringRef s) {
  return llvm::StringSwitch<std::optional<AttentionPath>>(s)
      .Case("auto", AttentionPath::Auto)
      .Case("scalar", AttentionPath::Scalar)
      .Case("mma", AttentionPath::Mma)
      .Default(std::nullopt);
}

struct BuildAttentionKernel
    : impl::SympowBuildAttentionKernelBase<BuildAttentionKernel> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AttentionKernelSpec spec;
    spec.p = power;
    spec.d = headDim;
    spec.e = valueDim ? valueDim : headDim;
    spec.hq = queryHeads;
    spec.h = kvHeads ? kvHeads : queryHeads;
    spec.rotaryDims = rotaryDims;
    spec.rotaryBase = rotaryBase;
    spec.rateScale = rateScale;
    spec.length = length;
    spec.scale = scale;
    spec.blockTokens = blockTokens;
    auto dt = parseEnum<ElementKind>(module, "dtype", dtype,
                                     symbolizeElementKind, "bf16, f16, f32");
    auto gt = parseEnum<GateKind>(module, "gate", gate, symbolizeGateKind,
                                  "none, head, data, both");
    auto sc = parseEnum<ScheduleKind>(module, "schedule", schedule,
                                      symbolizeScheduleKind,
                                      "none, uniform, learned, warped, blend");
    auto ly = parseEnum<RotaryLayout>(
        module, "layout", layout, symbolizeRotaryLayout, "interleaved, half");
    auto ph = parseEnum<AttentionPath>(module, "path", path, symbolizePath,
                                       "auto, scalar, mma");
    if (failed(dt) || failed(gt) || failed(sc) || failed(ly) || failed(ph))
      return signalPassFailure();
    spec.dtype = *dt;
    spec.gate = *gt;
    spec.schedule = *sc;
    spec.layout = *ly;
    spec.path = *ph;
    if (llvm::Error err = verifyAttentionKernelSpec(spec)) {
      module.emitError() << "cannot build the attention kernel: "
                         << llvm::toString(std::move(err));
      return signalPassFailure();
    }

    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    OpBuilder builder(&getContext());
    builder.setInsertionPointToEnd(module.getBody());
    std::string name =
        moduleName.empty() ? "sympow_" + spec.variantName() : moduleName;
    auto gpuModule = gpu::GPUModuleOp::create(builder, module.getLoc(), name);
    buildAttentionKernel(builder, gpuModule, spec, kernelName);
  }
};

/// vector<Nx2xbf16> -> N i32 registers holding bf16x2.
SmallVector<Value> packBF16Pairs(OpBuilder &b, Location loc, Value v) {
  auto type = cast<VectorType>(v.getType());
  SmallVector<Value> regs;
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    Value pair = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i});
    regs.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
  }
  return regs;
}

struct LowerBF16MmaSync : impl::SympowLowerBF16MmaSyncBase<LowerBF16MmaSync> {
  void runOnOperation() override {
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation()->walk([&](nvgpu::MmaSyncOp op) {
      if (op.getMatrixA().getType().getElementType().isBF16())
        ops.push_back(op);
    });
    for (nvgpu::MmaSyncOp op : ops) {
      auto shape = llvm::to_vector(
          llvm::map_range(op.getMmaShape().getAsValueRange<IntegerAttr>(),
                          [](const APInt &v) { return v.getSExtValue(); }));
      auto cType = op.getMatrixC().getType();
      if (shape != SmallVector<int64_t>{16, 8, 16} ||
          cType != VectorType::get({2, 2}, Float32Type::get(&getContext()))) {
        op.emitOpError("bf16 mma.sync is lowered for m16n8k16 with f32 "
                       "accumulators only");
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> a = packBF16Pairs(b, loc, op.getMatrixA());
      SmallVector<Value> bm = packBF16Pairs(b, loc, op.getMatrixB());
      SmallVector<Value> c;
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j)
          c.push_back(vector::ExtractOp::create(b, loc, op.getMatrixC(),
                                                ArrayRef<int64_t>{i, j}));
      Type f32 = b.getF32Type();
      auto resType =
          LLVM::LLVMStructType::getLiteral(&getContext(), {f32, f32, f32, f32});
      auto mma = NVVM::MmaOp::create(
          b, loc, resType, a, bm, c, shape, std::nullopt, std::nullopt,
          std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                        NVVM::MMATypes::bf16},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      SmallVector<Value> elems;
      for (int64_t i = 0; i < 4; ++i)
        elems.push_back(LLVM::ExtractValueOp::create(b, loc, mma, i));
      Value res = vector::FromElementsOp::create(b, loc, cType, elems);
      op.replaceAllUsesWith(res);
      op.erase();
    }
  }
};

struct CheckGpuBinaries : impl::SympowCheckGpuBinariesBase<CheckGpuBinaries> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    if (!toolkit.empty() &&
        !llvm::sys::fs::can_execute(toolkit + "/bin/ptxas")) {
      getOperation().emitError()
          << "CUDA toolkit '" << toolkit
          << "' has no executable bin/ptxas; the binaries may come from "
             "another toolkit";
      ok = false;
    }
    getOperation().walk([&](gpu::GPUModuleOp m) {
      m.emitError() << "gpu.module @" << m.getName()
                    << " was not compiled to a binary (see the errors of "
                       "gpu-module-to-binary above: toolkit path, ptxas)";
      ok = false;
    });
    getOperation().walk([&](gpu::BinaryOp bin) {
      for (Attribute a : bin.getObjects())
        if (auto obj = dyn_cast<gpu::ObjectAttr>(a);
            !obj || obj.getObject().getValue().empty()) {
          bin.emitError() << "gpu.binary @" << bin.getName()
                          << " holds an empty object";
          ok = false;
        }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
} // namespace sympow
