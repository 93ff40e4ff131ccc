//===- AOT.cpp - Kernels for the emulator as a shared object --------------===//
//
// The same lowering as the JIT, then LLVM IR, O2, a position-independent
// object and `cc -shared`. The object calls the runtime only through its
// table (ABI.h), so it loads into any program that links the runtime.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Emulator/JIT.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error sympow::emitSharedObject(ModuleOp module, llvm::StringRef path,
                                     const EmulatorPipelineOptions &options) {
  auto lowered = lowerToHostLLVM(module, options);
  if (!lowered)
    return lowered.takeError();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(**lowered, llvmContext);
  if (!llvmModule)
    return error("translation of the lowered kernels to LLVM IR failed");

  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return error("no target for " + triple.str() + ": " + message);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  if (!machine)
    return error("cannot create a target machine for " + triple.str());
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error e =
          makeOptimizingTransformer(2, 0, machine.get())(llvmModule.get()))
    return e;

  llvm::SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sympow-emu", "o", object))
    return error("cannot create a temporary object file: " + ec.message());
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(object, ec);
    if (ec)
      return error("cannot write " + object + ": " + ec.message());
    llvm::legacy::PassManager passes;
    if (machine->addPassesToEmitFile(passes, out, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return error("the target cannot emit object files");
    passes.run(*llvmModule);
  }

  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc) {
    llvm::sys::fs::remove(object);
    return error("no 'cc' in PATH to link the shared object");
  }
  // Linked next to `path` under a temporary name, then renamed over it: a
  // failed or killed link leaves an existing `path` as it was.
  if (llvm::sys::fs::is_directory(path)) {
    llvm::sys::fs::remove(object);
    return error("cannot write " + path + ": it is a directory");
  }
  std::string temp = (path + ".sympow-emulate-" +
                      llvm::Twine(llvm::sys::Process::getProcessId()) + ".tmp")
                         .str();
  llvm::StringRef args[] = {*cc, "-shared", "-o", temp, object, "-lm"};
  std::string linkError;
  int status =
      llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &linkError);
  llvm::sys::fs::remove(object);
  if (status != 0) {
    llvm::sys::fs::remove(temp);
    return error("linking " + path + " failed" +
                 (linkError.empty() ? "" : ": " + linkError));
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return error("cannot write " + path + ": " + ec.message());
  }
  return llvm::Error::success();
}
