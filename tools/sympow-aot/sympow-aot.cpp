//===- sympow-aot.cpp - Ahead-of-time kernel compiler
//----------------------===//
//
// Builds the kernels of the requested variants in every formulation they ask
// for (formulation=all by default), compiles them to cubin and PTX for each
// requested architecture and writes a report of what ptxas says about them:
//
//   sympow-aot --variant "p=2,d=64,dtype=bf16,gate=data,rope=learned" \
//              --arch sm_80,sm_90a --out DIR [--dump-stages]
//
// DIR/<module>.<arch>.cubin (all kernels of one formulation) and .ptx, and
// DIR/report.json with one entry per kernel and architecture. See
// docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Driver/LayerKernels.h"
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

static cl::list<std::string> variants(
    "variant",
    cl::desc("Variant, e.g. \"p=2,d=64,dtype=bf16,gate=data,rope=learned"
             "[,formulation=all|attention|chunked|recurrent][,chunk=C]\" "
             "(repeatable)"),
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

const char *formulationName(sympow::runtime::Formulation f) {
  switch (f) {
  case sympow::runtime::Formulation::Attention:
    return "attention";
  case sympow::runtime::Formulation::Chunked:
    return "chunked";
  case sympow::runtime::Formulation::Recurrent:
    return "recurrent";
  }
  return "";
}

/// The PTX of one entry function: from its `.entry` to the next one.
llvm::StringRef entryText(llvm::StringRef ptx, llvm::StringRef kernel) {
  size_t begin = ptx.find((".entry " + kernel + "(").str());
  if (begin == llvm::StringRef::npos)
    return "";
  size_t end = ptx.find(".entry ", begin + 1);
  return ptx.slice(begin, end);
}

/// Compiles `module` (one gpu.module, the kernels of `request`) for `arch`;
/// appends one report entry per kernel. Returns false on any error
/// (diagnostics already printed).
bool compileForArch(ModuleOp module, llvm::StringRef name, llvm::StringRef arch,
                    const sympow::LayerKernelRequest &request,
                    llvm::json::Array &entries) {
  const sympow::AttentionKernelSpec &spec = request.spec;
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
  sympow::runtime::LayerVariant variant = sympow::layerVariant(request);
  std::vector<sympow::runtime::KernelInfo> infos =
      sympow::kernelInfos(module, variant);
  if (usage->size() != infos.size()) {
    llvm::errs() << "sympow-aot: expected " << infos.size()
                 << " entry functions in " << stem << ", ptxas reported "
                 << usage->size() << "\n";
    return false;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  bool attention =
      request.formulation == sympow::runtime::Formulation::Attention;
  for (const sympow::runtime::KernelInfo &info : infos) {
    const sympow::PtxasUsage *u = nullptr;
    for (const sympow::PtxasUsage &candidate : *usage)
      if (candidate.kernel == info.name)
        u = &candidate;
    if (!u) {
      llvm::errs() << "sympow-aot: ptxas did not report " << info.name << " in "
                   << stem << "\n";
      return false;
    }
    llvm::json::Object entry;
    entry["name"] = name.str();
    entry["kernel"] = info.name;
    entry["arch"] = arch.str();
    entry["formulation"] = formulationName(request.formulation);
    entry["path"] =
        attention && spec.resolvedPath() == sympow::AttentionPath::Mma
            ? "mma"
            : "scalar";
    entry["registers"] = u->registers;
    entry["spill_store_bytes"] = u->spillStoreBytes;
    entry["spill_load_bytes"] = u->spillLoadBytes;
    entry["stack_bytes"] = u->stackBytes;
    entry["shared_bytes"] = u->sharedBytes;
    entry["threads_per_block"] = int64_t(info.launch.block.x);
    entry["tokens_per_block"] = info.launch.tokensPerBlock;
    entry["tensor_core_instructions"] =
        sympow::countTensorCoreInstructions(entryText(ptx, info.name));
    entry["compile_ms"] = static_cast<int64_t>(ms);
    entry["cubin"] = cubin;
    entry["ptx"] = stem + ".ptx";
    // What the runtime needs to launch it (docs/KernelABI.md).
    llvm::json::Array args;
    for (sympow::runtime::KernelArg arg :
         sympow::runtime::layerKernelArguments(variant, info.name))
      args.push_back(sympow::runtime::kernelArgName(arg));
    args.push_back("B");
    args.push_back("T");
    entry["args"] = std::move(args);
    entry["launch"] = llvm::json::Object{
        {"block", llvm::json::Array{int64_t(info.launch.block.x),
                                    int64_t(info.launch.block.y),
                                    int64_t(info.launch.block.z)}},
        {"tokens_per_block", info.launch.tokensPerBlock},
        {"grid_y", info.launch.gridY},
        {"dynamic_shared_bytes", int64_t(info.launch.dynamicSharedBytes)},
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
        {"chunk", request.chunk},
    };
    entries.push_back(std::move(entry));
  }
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
    auto parsed = sympow::parseLayerVariant(text);
    if (!parsed) {
      llvm::errs() << "sympow-aot: variant \"" << text
                   << "\": " << llvm::toString(parsed.takeError()) << "\n";
      ok = false;
      continue;
    }
    // formulation=all asks for what the variant admits; a formulation asked
    // for by name must build.
    bool all = parsed->requests.size() > 1 ||
               !llvm::StringRef(text).contains("formulation=");
    for (const sympow::LayerKernelRequest &request : parsed->requests) {
      if (llvm::Error err = sympow::verifyLayerKernels(request)) {
        std::string why = llvm::toString(std::move(err));
        if (all &&
            request.formulation != sympow::runtime::Formulation::Attention) {
          llvm::errs() << "sympow-aot: note: variant \"" << text << "\": no "
                       << formulationName(request.formulation)
                       << " kernels: " << why << "\n";
          continue;
        }
        llvm::errs() << "sympow-aot: variant \"" << text << "\": " << why
                     << "\n";
        ok = false;
        continue;
      }
      OwningOpRef<ModuleOp> module =
          sympow::buildLayerKernelModule(context, request);
      std::string name = "sympow_" + request.spec.variantName() + "_" +
                         formulationName(request.formulation);
      if (request.chunk)
        name += std::to_string(request.chunk);
      for (auto kernels : module->getOps<gpu::GPUModuleOp>())
        kernels.setSymName(name);
      if (failed(module->verify())) {
        ok = false;
        continue;
      }
      if (dumpStages && !writeFile(path(name + ".kernel.mlir"), print(*module)))
        ok = false;
      llvm::errs() << "sympow-aot: " << name << "\n";
      for (llvm::StringRef arch : archList)
        if (!compileForArch(*module, name, arch.trim(), request, kernels))
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
