//===- Pipeline.h - Kernels to host code for the emulator -------*- C++ -*-===//
//
// `sympow-gpu-to-emulator`, then the standard CPU lowering to the LLVM
// dialect, then the packed entries and manifest the emulator runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_EMULATOR_PIPELINE_H
#define SYMPOW_COMPILER_EMULATOR_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace sympow {

struct EmulatorPipelineOptions {
  /// Instrument memory accesses (bounds and race checks).
  bool checkAccesses = true;
};

void buildEmulatorPipeline(mlir::OpPassManager &pm,
                           const EmulatorPipelineOptions &options);

/// Registers `--sympow-emulator-pipeline` for -opt tools.
void registerEmulatorPipeline();

} // namespace sympow

#endif // SYMPOW_COMPILER_EMULATOR_PIPELINE_H
