//===- JIT.h - Compile kernels for the emulator, in process -----*- C++ -*-===//
//
// Lowers a module's gpu.module kernels with the emulator pipeline, JIT
// compiles the result (mlir::ExecutionEngine) and hands back the runtime's
// view of it, an emu::Module whose kernels `sympow::emu::launch` runs.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_EMULATOR_JIT_H
#define SYMPOW_COMPILER_EMULATOR_JIT_H

#include "sympow/Compiler/Emulator/Pipeline.h"
#include "sympow/Emulator/Emulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace sympow {

/// The emulator pipeline on a copy of `module`: the host LLVM-dialect
/// module (printed to `lowered` if given), or an error naming what failed.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
lowerToHostLLVM(mlir::ModuleOp module, const EmulatorPipelineOptions &options,
                llvm::raw_ostream *lowered = nullptr);

/// Ahead of time: compiles the kernels of `module` into a shared object at
/// `path` (position-independent object, linked with the system's `cc
/// -shared`), which `emu::Module::loadSharedObject` loads with no LLVM.
llvm::Error emitSharedObject(mlir::ModuleOp module, llvm::StringRef path,
                             const EmulatorPipelineOptions &options = {});

class EmulatorJIT {
public:
  /// Compiles a copy of `module` (which is left as it was).
  /// If `lowered` is given, the LLVM-dialect module is printed to it (also
  /// when translation to LLVM IR fails).
  static llvm::Expected<std::unique_ptr<EmulatorJIT>>
  compile(mlir::ModuleOp module, const EmulatorPipelineOptions &options = {},
          llvm::raw_ostream *lowered = nullptr);
  /// Parses `source` (MLIR text; `name` names it in locations) in `context`
  /// and compiles it.
  static llvm::Expected<std::unique_ptr<EmulatorJIT>>
  compileSource(llvm::StringRef source, mlir::MLIRContext &context,
                const EmulatorPipelineOptions &options = {},
                llvm::StringRef name = "",
                llvm::raw_ostream *lowered = nullptr);
  ~EmulatorJIT();

  const emu::Module &module() const { return *kernels; }
  /// The kernel named `name`, or nullptr.
  const emu::Kernel *kernel(llvm::StringRef name) const {
    return kernels->getKernel(name.str());
  }

  /// The dialects kernels are written in, plus the translations to LLVM IR.
  static void registerDialects(mlir::DialectRegistry &registry);

private:
  EmulatorJIT() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::unique_ptr<emu::Module> kernels;
};

} // namespace sympow

#endif // SYMPOW_COMPILER_EMULATOR_JIT_H
