//===- sympow-opt.cpp - The mlir-opt of the sympow compiler ---------------===//
//
// Parses IR, runs the passes named on the command line and prints the result:
// the sympow dialect and passes plus the upstream dialects and passes the
// pipelines use.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Emulator/Pipeline.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/Passes.h"
#include "sympow/Dialect/SympowDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  sympow::registerSympowPasses();
  // GPU code generation: the pipelines and the upstream passes they use.
  sympow::registerGPUPipelines();
  mlir::registerGPUPasses();
  // The emulator: gpu.module kernels -> host code (docs/Emulator.md).
  sympow::registerEmulatorPipeline();

  mlir::DialectRegistry registry;
  registry.insert<sympow::SympowDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  sympow::registerGPUDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "sympow optimizer driver: the sympow dialect and passes\n",
      registry));
}
