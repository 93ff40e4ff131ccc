//===- JIT.cpp - Compile gpu.module kernels for the emulator, in process --===//

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/Tile/TileDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"

using namespace mlir;
using namespace sympow;

void EmulatorJIT::registerDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  nvgpu::NVGPUDialect, scf::SCFDialect, ub::UBDialect,
                  vector::VectorDialect>();
  // Lowered kernels keep the flushing exp2 and log2 (sympow_tile.exp2_ftz,
  // log2_ftz), which the emulator lowers itself.
  registry.insert<tile::TileDialect>();
  func::registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

EmulatorJIT::~EmulatorJIT() = default;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<OwningOpRef<ModuleOp>>
sympow::lowerToHostLLVM(ModuleOp module, const EmulatorPipelineOptions &options,
                        llvm::raw_ostream *lowered) {
  static bool targetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetReady;

  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  EmulatorJIT::registerDialects(registry);
  ctx->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      llvm::raw_string_ostream os(diagnostics);
      os << d.getLocation() << ": " << d << "\n";
      return success();
    });
    PassManager pm(ctx);
    buildEmulatorPipeline(pm, options);
    if (failed(pm.run(*copy)))
      return error("lowering for the emulator failed:\n" + diagnostics);
  }
  if (lowered)
    copy->print(*lowered);
  // Name what the CPU lowering left behind (the JIT would only say that it
  // "could not convert to LLVM IR").
  Operation *leftover = nullptr;
  copy->walk([&](Operation *op) {
    if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    leftover = op;
    return WalkResult::interrupt();
  });
  if (leftover) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << leftover->getLoc() << ": '" << leftover->getName()
       << "' was not lowered to the LLVM dialect (the emulator's CPU "
          "lowering has no pattern for this form of it)";
    return error(text);
  }
  return copy;
}

llvm::Expected<std::unique_ptr<EmulatorJIT>>
EmulatorJIT::compile(ModuleOp module, const EmulatorPipelineOptions &options,
                     llvm::raw_ostream *lowered) {
  auto copy = lowerToHostLLVM(module, options, lowered);
  if (!copy)
    return copy.takeError();

  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  auto engine = ExecutionEngine::create(**copy, engineOptions);
  if (!engine)
    return engine.takeError();

  std::unique_ptr<EmulatorJIT> jit(new EmulatorJIT());
  jit->engine = std::move(*engine);
  // The runtime's entry points are bound through the module's table; these
  // symbols are for the bf16 helpers (and anything else lowered code might
  // name directly).
  jit->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto [name, address] : emu::runtimeSymbols())
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  std::string message, lookupErrors;
  jit->kernels = emu::Module::fromSymbols(
      [&](const std::string &name) -> void * {
        auto address = jit->engine->lookup(name);
        if (!address) {
          lookupErrors += llvm::toString(address.takeError()) + "\n";
          return nullptr;
        }
        return *address;
      },
      message);
  if (!jit->kernels)
    return error(lookupErrors.empty()
                     ? message
                     : "JIT compilation failed: " + lookupErrors);
  return jit;
}

llvm::Expected<std::unique_ptr<EmulatorJIT>>
EmulatorJIT::compileSource(StringRef source, MLIRContext &context,
                           const EmulatorPipelineOptions &options,
                           StringRef name, llvm::raw_ostream *lowered) {
  DialectRegistry registry;
  registerDialects(registry);
  context.appendDialectRegistry(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, name);
  if (!module)
    return error("cannot parse the kernel module:\n" + diagnostics);
  return compile(*module, options, lowered);
}
