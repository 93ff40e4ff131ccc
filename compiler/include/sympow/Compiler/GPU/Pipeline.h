//===- Pipeline.h - gpu.module -> NVVM -> PTX/cubin ------------*- C++ -*-===//
//
// The lowering of generated kernels to NVVM, PTX and cubin through upstream
// passes, and the registrations a tool needs to run it.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_PIPELINE_H
#define SYMPOW_COMPILER_GPU_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <map>
#include <string>

namespace sympow {

/// Where and how kernels are compiled. `features` "+ptx80" is needed by
/// sm_90a and accepted by sm_80 (CUDA 13's ptxas).
struct GpuTargetOptions {
  std::string chip = "sm_80";
  std::string features = "+ptx80";
  std::string libdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
  unsigned optLevel = 3;
};

/// gpu.modules of upstream dialects (gpu, arith, math, scf, memref, vector,
/// nvgpu) -> NVVM + LLVM dialects, with #nvvm.target attached (libdevice
/// linked).
void buildGpuToNVVMPipeline(mlir::OpPassManager &pm,
                            const GpuTargetOptions &options);

/// The NVVM pipeline, then gpu-module-to-binary with `format` (isa, bin or
/// fatbin) and a check that every gpu.module became a non-empty binary.
void buildGpuToBinaryPipeline(mlir::OpPassManager &pm,
                              const GpuTargetOptions &options,
                              llvm::StringRef format, llvm::StringRef toolkit);

/// The second half of that: gpu-module-to-binary and the check.
void buildNVVMToBinaryPipeline(mlir::OpPassManager &pm, llvm::StringRef format,
                               llvm::StringRef toolkit);

/// Registers `sympow-gpu-to-nvvm` and `sympow-gpu-to-binary` (pipelines).
void registerGPUPipelines();

/// Dialects, LLVM conversion interfaces, the NVVM target and the LLVM IR
/// translations the pipelines need.
void registerGPUDialects(mlir::DialectRegistry &registry);

/// Lowers a clone of `module` for options.chip and returns the PTX of each
/// gpu.module by name; `nvvm`, when given, receives the module after the
/// NVVM pipeline. Errors are reported as diagnostics.
mlir::FailureOr<std::map<std::string, std::string>>
compileToPtx(mlir::ModuleOp module, const GpuTargetOptions &options,
             std::string *nvvm = nullptr);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_PIPELINE_H
