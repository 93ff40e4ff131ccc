//===- sympow-aot.cpp - Ahead-of-time kernel compiler
//----------------------===//
//
// Builds the kernels of the requested variants, compiles them to cubin for
// each requested architecture and writes a report of what ptxas says about
// them:
//
//   sympow-aot --variant "p=2,d=64,dtype=bf16,gate=data,rope=learned" \
//              --arch sm_80,sm_90a --out DIR [--dump-stages]
//
// DIR/<module>.<arch>.cubin for each kernel and architecture, and
// DIR/report.json. See docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/GPU/Ptxas.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::list<std::string>
    variants("variant",
             cl::desc("Variant, e.g. \"p=2,d=64,dtype=bf16,"
                      "gate=data,rope=learned\" (repeatable)"),
             cl::OneOrMore);
static cl::opt<std::string> archs("arch",
                                  cl::desc("Comma-separated architectures"),
                                  cl::init("sm_80,sm_90a"));
static cl::opt<std::string> outDir("out", cl::desc("Output folder"),
                                   cl::Required);
static cl::opt<bool>
    dumpStages("dump-stages",
               cl::desc("Also write the kernel IR, the NVVM IR and the PTX"));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to run"),
                                      cl::init("/usr/local/cuda/bin/ptxas"));
static cl::opt<std::string>
    libdevice("libdevice", cl::desc("libdevice bitcode to link"),
              cl::init("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"));

namespace {

bool writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "sympow-aot: cannot write " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  os << text;
  return true;
}

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

std::string path(llvm::StringRef file) {
  llvm::SmallString<256> p(outDir);
  llvm::sys::path::append(p, file);
  return p.str().str();
}

/// Compiles `module` (one gpu.module) for `arch`; fills `entry`. Returns
/// false on any error (diagnostics already printed).
bool compileForArch(ModuleOp module, llvm::StringRef name, llvm::StringRef arch,
                    const sympow::AttentionKernelSpec &spec,
                    llvm::json::Object &entry) {
  auto start = std::chrono::steady_clock::now();
  sympow::GpuTargetOptions target;
  target.chip = arch.str();
  target.libdevice = libdevice;
  OwningOpRef<ModuleOp> work = module.clone();
  PassManager nvvm(module->getContext());
  sympow::buildGpuToNVVMPipeline(nvvm, target);
  if (failed(nvvm.run(*work)))
    return false;
  std::string stem = (name + "." + arch).str();
  if (dumpStages && !writeFile(path(stem + ".nvvm.mlir"), print(*work)))
    return false;

  PassManager binary(module->getContext());
  GpuModuleToBinaryPassOptions isa;
  isa.compilationTarget = "isa";
  binary.addPass(createGpuModuleToBinaryPass(isa));
  if (failed(binary.run(*work)))
    return false;
  std::string ptx;
  for (auto bin : work->getOps<gpu::BinaryOp>())
    for (Attribute a : bin.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(a))
        ptx = obj.getObject().getValue().str();
  if (ptx.empty()) {
    llvm::errs() << "sympow-aot: no PTX for " << stem << "\n";
    return false;
  }
  // The PTX is an image too: the runtime JIT-compiles it on newer GPUs.
  if (!writeFile(path(stem + ".ptx"), ptx))
    return false;

  std::string cubin = stem + ".cubin";
  auto usage = sympow::runPtxas(ptx, arch, path(cubin), ptxasPath);
  if (!usage) {
    llvm::errs() << "sympow-aot: " << llvm::toString(usage.takeError()) << "\n";
    return false;
  }
  if (usage->size() != 1) {
    llvm::errs() << "sympow-aot: expected one entry function in " << stem
                 << ", ptxas reported " << usage->size() << "\n";
    return false;
  }
  const sympow::PtxasUsage &u = usage->front();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  entry["name"] = name.str();
  entry["kernel"] = u.kernel;
  entry["arch"] = arch.str();
  entry["formulation"] = "attention";
  entry["path"] =
      spec.resolvedPath() == sympow::AttentionPath::Mma ? "mma" : "scalar";
  entry["registers"] = u.registers;
  entry["spill_store_bytes"] = u.spillStoreBytes;
  entry["spill_load_bytes"] = u.spillLoadBytes;
  entry["stack_bytes"] = u.stackBytes;
  entry["shared_bytes"] = u.sharedBytes;
  entry["threads_per_block"] = spec.threadsPerBlock();
  entry["tokens_per_block"] = spec.resolvedBlockTokens();
  entry["tensor_core_instructions"] = sympow::countTensorCoreInstructions(ptx);
  entry["compile_ms"] = static_cast<int64_t>(ms);
  entry["cubin"] = cubin;
  entry["ptx"] = stem + ".ptx";
  // What the runtime needs to launch it (docs/KernelABI.md).
  llvm::json::Array args{"q", "k", "v"};
  if (spec.hasLogG())
    args.push_back("log_g");
  if (spec.hasLogGamma())
    args.push_back("log_gamma");
  if (spec.hasBeta())
    args.push_back("beta");
  for (const char *a : {"y", "B", "T"})
    args.push_back(a);
  entry["args"] = std::move(args);
  entry["launch"] = llvm::json::Object{
      {"block", llvm::json::Array{spec.threadsPerBlock(), 1, 1}},
      {"tokens_per_block", spec.resolvedBlockTokens()},
      {"grid_y", spec.hq},
      {"dynamic_shared_bytes", 0},
  };
  entry["variant"] = llvm::json::Object{
      {"p", spec.p},
      {"d", spec.d},
      {"e", spec.e},
      {"hq", spec.hq},
      {"h", spec.h},
      {"dtype", sympow::stringifyElementKind(spec.dtype).str()},
      {"gate", sympow::stringifyGateKind(spec.gate).str()},
      {"rope", sympow::stringifyScheduleKind(spec.schedule).str()},
      {"layout", sympow::stringifyRotaryLayout(spec.layout).str()},
      {"r", spec.effectiveRotaryDims()},
  };
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  cl::ParseCommandLineOptions(argc, argv, "sympow ahead-of-time compiler\n");

  DialectRegistry registry;
  sympow::registerGPUDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Upstream reports some failures (a bad toolkit path) as errors without
  // failing: any error fails the run.
  int errors = 0;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    llvm::errs() << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    llvm::errs() << "sympow-aot: cannot create " << outDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  llvm::SmallVector<llvm::StringRef> archList;
  llvm::StringRef(archs).split(archList, ',', -1, false);

  llvm::json::Array kernels;
  bool ok = true;
  for (const std::string &text : variants) {
    auto spec = sympow::parseAttentionVariant(text);
    if (!spec) {
      llvm::errs() << "sympow-aot: variant \"" << text
                   << "\": " << llvm::toString(spec.takeError()) << "\n";
      ok = false;
      continue;
    }
    if (llvm::Error err = sympow::verifyAttentionKernelSpec(*spec)) {
      llvm::errs() << "sympow-aot: variant \"" << text
                   << "\": " << llvm::toString(std::move(err)) << "\n";
      ok = false;
      continue;
    }
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                       builder.getUnitAttr());
    builder.setInsertionPointToEnd(module->getBody());
    std::string name = "sympow_" + spec->variantName();
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, builder.getUnknownLoc(), name);
    sympow::buildAttentionKernel(builder, gpuModule, *spec);
    if (failed(module->verify())) {
      ok = false;
      continue;
    }
    if (dumpStages && !writeFile(path(name + ".kernel.mlir"), print(*module)))
      ok = false;
    for (llvm::StringRef arch : archList) {
      llvm::json::Object entry;
      if (compileForArch(*module, name, arch.trim(), *spec, entry))
        kernels.push_back(std::move(entry));
      else
        ok = false;
    }
  }

  llvm::json::Object report{{"kernels", std::move(kernels)}};
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  if (!writeFile(path("report.json"), json))
    ok = false;
  if (errors)
    llvm::errs() << "sympow-aot: " << errors << " error(s) reported\n";
  return ok && !errors ? 0 : 1;
}
