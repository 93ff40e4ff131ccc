//===- Pipeline.cpp - gpu.module kernels -> host LLVM dialect -------------===//

#include "sympow/Compiler/Emulator/Pipeline.h"
#include "sympow/Compiler/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void sympow::buildEmulatorPipeline(OpPassManager &pm,
                                   const EmulatorPipelineOptions &options) {
  SympowGPUToEmulatorOptions lowering;
  lowering.checkAccesses = options.checkAccesses;
  pm.addPass(createSympowGPUToEmulator(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 <-> f32 as integer ops: the host's libgcc may lack the helpers.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createSympowEmulatorPackedEntries());
}

void sympow::registerEmulatorPipeline() {
  PassPipelineRegistration<>(
      "sympow-emulator-pipeline",
      "gpu.module kernels -> host LLVM dialect for the CPU emulator",
      [](OpPassManager &pm) { buildEmulatorPipeline(pm, {}); });
}
