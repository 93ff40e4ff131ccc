//===- Pipeline.cpp - gpu.module -> NVVM -> PTX/cubin ---------------------===//

#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace sympow {

void buildGpuToNVVMPipeline(OpPassManager &pm,
                            const GpuTargetOptions &options) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // First: before sm_90a the warpgroup ops become (bf16) mma.sync.
  SympowLowerWarpgroupMmaOptions warpgroup;
  warpgroup.chip = options.chip;
  kernels.addPass(createSympowLowerWarpgroupMma(warpgroup));
  SympowLowerBulkCopiesOptions bulk;
  bulk.chip = options.chip;
  kernels.addPass(createSympowLowerBulkCopies(bulk));
  kernels.addPass(createSympowLowerBF16MmaSync());
  kernels.addPass(createSympowLowerFlushMath());
  kernels.addPass(createSympowLowerBf16Fma());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  if (!options.libdevice.empty())
    target.linkLibs.push_back(options.libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &lower = pm.nest<gpu::GPUModuleOp>();
  lower.addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops written as inline PTX (wgmma.mma_async).
  lower.addPass(createConvertNVVMToLLVMPass());
  lower.addPass(createCanonicalizerPass());
  lower.addPass(createCSEPass());
  lower.addPass(createReconcileUnrealizedCastsPass());
}

void buildGpuToBinaryPipeline(OpPassManager &pm,
                              const GpuTargetOptions &options, StringRef format,
                              StringRef toolkit) {
  buildGpuToNVVMPipeline(pm, options);
  buildNVVMToBinaryPipeline(pm, format, toolkit);
}

void buildNVVMToBinaryPipeline(OpPassManager &pm, StringRef format,
                               StringRef toolkit) {
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  binary.toolkitPath = toolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  SympowCheckGpuBinariesOptions check;
  check.toolkit = format == "isa" ? "" : toolkit.str();
  pm.addPass(createSympowCheckGpuBinaries(check));
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("sm_80 or sm_90a"),
                           llvm::cl::init("sm_80")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> libdevice{
      *this, "libdevice", llvm::cl::desc("libdevice bitcode to link"),
      llvm::cl::init("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")};
  Option<unsigned> optLevel{*this, "opt-level", llvm::cl::desc("LLVM -O"),
                            llvm::cl::init(3)};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("isa (PTX), bin (cubin), fatbin"),
                             llvm::cl::init("isa")};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("CUDA toolkit (ptxas)"),
                              llvm::cl::init("/usr/local/cuda")};

  GpuTargetOptions target() const {
    GpuTargetOptions t;
    t.chip = chip;
    t.features = features;
    t.libdevice = libdevice;
    t.optLevel = optLevel;
    return t;
  }
};
} // namespace

void registerGPUPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "sympow-gpu-to-nvvm",
      "Lower sympow gpu.modules to NVVM with an #nvvm.target attached",
      [](OpPassManager &pm, const PipelineOptions &o) {
        buildGpuToNVVMPipeline(pm, o.target());
      });
  PassPipelineRegistration<PipelineOptions>(
      "sympow-gpu-to-binary",
      "Lower sympow gpu.modules to NVVM and compile them to PTX or cubin",
      [](OpPassManager &pm, const PipelineOptions &o) {
        buildGpuToBinaryPipeline(pm, o.target(), o.format, o.toolkit);
      });
}

void registerGPUDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect, tile::TileDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

FailureOr<std::map<std::string, std::string>>
compileToPtx(ModuleOp module, const GpuTargetOptions &options,
             std::string *nvvm) {
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager toNvvm(module->getContext()), toPtx(module->getContext());
  buildGpuToNVVMPipeline(toNvvm, options);
  buildNVVMToBinaryPipeline(toPtx, "isa", "");
  if (failed(toNvvm.run(*clone)))
    return failure();
  if (nvvm) {
    nvvm->clear();
    llvm::raw_string_ostream os(*nvvm);
    clone->print(os);
  }
  if (failed(toPtx.run(*clone)))
    return failure();
  std::map<std::string, std::string> ptx;
  for (auto bin : clone->getOps<gpu::BinaryOp>())
    for (Attribute a : bin.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(a))
        ptx[bin.getName().str()] = obj.getObject().getValue().str();
  return ptx;
}

} // namespace sympow
