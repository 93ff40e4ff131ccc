//===- ModuleBuild.cpp - One kernel module, built for every target --------===//

#include "ModuleBuild.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/GPU/AssembleKernels.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/GPU/Ptxas.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace sympow;
using namespace sympow::aot;

namespace {

std::string join(llvm::StringRef dir, llvm::StringRef file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return p.str().str();
}

/// Writes `text` to `path`; on failure appends why to `log`.
bool writeFile(llvm::StringRef path, llvm::StringRef text, std::string &log) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    log += "cannot write " + path.str() + ": " + ec.message() + "\n";
    return false;
  }
  os << text;
  os.close();
  if (os.has_error()) { // a full disk, say: an error, not a fatal one
    log += "cannot write " + path.str() + ": " + os.error().message() + "\n";
    os.clear_error();
    return false;
  }
  return true;
}

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// The PTX of one entry function: from its `.entry` to the next one.
llvm::StringRef entryText(llvm::StringRef ptx, llvm::StringRef kernel) {
  size_t begin = ptx.find((".entry " + kernel + "(").str());
  if (begin == llvm::StringRef::npos)
    return "";
  size_t end = ptx.find(".entry ", begin + 1);
  return ptx.slice(begin, end);
}

/// Where one arch's cached build lives: a folder keyed by everything that
/// decides what it holds.
std::string cacheFolder(const BuildOptions &options, llvm::StringRef arch,
                        llvm::StringRef moduleText) {
  llvm::SHA256 hash;
  for (llvm::StringRef part :
       {llvm::StringRef(compilerFingerprint()), arch,
        llvm::StringRef(options.ptxas), llvm::StringRef(options.libdevice),
        moduleText}) {
    hash.update(part);
    hash.update(llvm::StringRef("\0", 1));
  }
  return join(join(options.cacheDir, "aot"),
              llvm::toHex(hash.final(), /*LowerCase=*/true).substr(0, 32));
}

/// Copies the cached files of one arch into the output folder and reads
/// its report entries; false if the cache has no complete entry.
bool loadCached(llvm::StringRef folder, llvm::StringRef stem,
                const BuildOptions &options, llvm::json::Array &report) {
  auto json = llvm::MemoryBuffer::getFile(join(folder, "report.json"));
  if (!json)
    return false;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*json)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const llvm::json::Array *entries = parsed->getAsArray();
  if (!entries)
    return false;
  for (llvm::StringRef ext : {".ptx", ".cubin"})
    if (llvm::sys::fs::copy_file(join(folder, ("image" + ext).str()),
                                 join(options.outDir, (stem + ext).str())))
      return false;
  for (const llvm::json::Value &entry : *entries)
    report.push_back(entry);
  return true;
}

/// Stores the arch's files and report entries (best effort: a cache that
/// cannot be written only costs time).
void storeCached(llvm::StringRef folder, llvm::StringRef stem,
                 const BuildOptions &options, const llvm::json::Array &report) {
  std::string temp = (folder + ".partial").str();
  llvm::sys::fs::remove_directories(temp);
  if (llvm::sys::fs::create_directories(temp))
    return;
  for (llvm::StringRef ext : {".ptx", ".cubin"})
    if (llvm::sys::fs::copy_file(join(options.outDir, (stem + ext).str()),
                                 join(temp, ("image" + ext).str())))
      return;
  std::string text, ignored;
  llvm::raw_string_ostream(text)
      << llvm::json::Value(llvm::json::Array(report));
  if (!writeFile(join(temp, "report.json"), text, ignored))
    return;
  llvm::sys::fs::remove_directories(folder);
  (void)llvm::sys::fs::rename(temp, folder);
}

/// Compiles `module` for `arch`: PTX, cubin, and one report entry per
/// kernel.
bool compileForArch(ModuleOp module, ModuleBuild &build, llvm::StringRef arch,
                    const BuildOptions &options) {
  const AttentionKernelSpec &spec = build.request.spec;
  auto start = std::chrono::steady_clock::now();
  GpuTargetOptions target;
  target.chip = arch.str();
  target.libdevice = options.libdevice;
  std::string stem = build.name + "." + arch.str();
  std::string cubin = stem + ".cubin";
  auto assembled = assembleKernels(module, target, join(options.outDir, cubin),
                                   options.ptxas, options.dumpStages);
  if (!assembled) {
    build.log += llvm::toString(assembled.takeError()) + "\n";
    return false;
  }
  const std::string &ptx = assembled->ptx;
  if (options.dumpStages &&
      !writeFile(join(options.outDir, stem + ".nvvm.mlir"), assembled->nvvm,
                 build.log))
    return false;
  // The PTX is an image too: the runtime JIT-compiles it on newer GPUs.
  if (!writeFile(join(options.outDir, stem + ".ptx"), ptx, build.log))
    return false;
  for (const RelaxedFloor &r : assembled->relaxed)
    build.log += "note: " + r.kernel + " for " + arch.str() +
                 ": ptxas spilled at " + std::to_string(r.requested) +
                 " programs per SM; built for " + std::to_string(r.built) +
                 "\n";
  const std::vector<PtxasUsage> &usage = assembled->usage;
  runtime::LayerVariant variant = layerVariant(build.request);
  if (usage.size() != build.kernels.size()) {
    build.log += "expected " + std::to_string(build.kernels.size()) +
                 " entry functions in " + stem + ", ptxas reported " +
                 std::to_string(usage.size()) + "\n";
    return false;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  bool attention = build.request.formulation == runtime::Formulation::Attention;
  for (const runtime::KernelInfo &info : build.kernels) {
    const PtxasUsage *u = nullptr;
    for (const PtxasUsage &candidate : usage)
      if (candidate.kernel == info.name)
        u = &candidate;
    if (!u) {
      build.log += "ptxas did not report " + info.name + " in " + stem + "\n";
      return false;
    }
    llvm::json::Object entry;
    entry["name"] = build.name;
    entry["kernel"] = info.name;
    entry["arch"] = arch.str();
    entry["formulation"] = runtime::formulationName(build.request.formulation);
    entry["path"] = attention && spec.resolvedPath() == AttentionPath::Mma
                        ? "mma"
                        : "scalar";
    entry["registers"] = u->registers;
    // Where ptxas could not meet the kernel's occupancy floor without
    // spilling: the floor it asked for (AssembleKernels.h).
    if (int32_t from = assembled->relaxedFrom(info.name))
      entry["floor_relaxed_from"] = int64_t(from);
    entry["spill_store_bytes"] = u->spillStoreBytes;
    entry["spill_load_bytes"] = u->spillLoadBytes;
    entry["stack_bytes"] = u->stackBytes;
    entry["shared_bytes"] = u->sharedBytes;
    entry["threads_per_block"] = int64_t(info.launch.block.x);
    entry["tokens_per_block"] = info.launch.tokensPerBlock;
    entry["tensor_core_instructions"] =
        countTensorCoreInstructions(entryText(ptx, info.name));
    entry["compile_ms"] = static_cast<int64_t>(ms);
    entry["cubin"] = cubin;
    entry["ptx"] = stem + ".ptx";
    // What the runtime needs to launch it (docs/KernelABI.md).
    llvm::json::Array args;
    for (runtime::KernelArg arg :
         runtime::layerKernelArguments(variant, info.name))
      args.push_back(runtime::kernelArgName(arg));
    args.push_back("B");
    args.push_back("T");
    entry["args"] = std::move(args);
    entry["launch"] = llvm::json::Object{
        {"block", llvm::json::Array{int64_t(info.launch.block.x),
                                    int64_t(info.launch.block.y),
                                    int64_t(info.launch.block.z)}},
        {"tokens_per_block", info.launch.tokensPerBlock},
        {"grid_y", info.launch.gridY},
        {"blocks_x", info.launch.blocksX},
        {"dynamic_shared_bytes", int64_t(info.launch.dynamicSharedBytes)},
    };
    entry["variant"] = llvm::json::Object{
        {"p", spec.p},
        {"d", spec.d},
        {"e", spec.e},
        {"hq", spec.hq},
        {"h", spec.h},
        {"dtype", stringifyElementKind(spec.dtype).str()},
        {"gate", stringifyGateKind(spec.gate).str()},
        {"rope", stringifyScheduleKind(spec.schedule).str()},
        {"layout", stringifyRotaryLayout(spec.layout).str()},
        {"r", spec.effectiveRotaryDims()},
        {"chunk", build.request.chunk},
        {"string", build.variant},
    };
    build.report.push_back(std::move(entry));
  }
  return true;
}

/// The emulator's shared object, through the driver's own cache.
bool buildEmulatorImage(ModuleBuild &build, const BuildOptions &options,
                        bool &cached) {
  auto compiled = compileLayerKernels(
      build.request, KernelTarget::EmulatorShared, {}, options.cacheDir);
  if (!compiled) {
    build.log +=
        "emulator build: " + llvm::toString(compiled.takeError()) + "\n";
    return false;
  }
  cached = (*compiled)->fromCache();
  const runtime::KernelImage &image = (*compiled)->images().front();
  std::string file = build.name + ".emulator.so";
  if (!writeFile(
          join(options.outDir, file),
          llvm::StringRef(static_cast<const char *>(image.data), image.size),
          build.log))
    return false;
  build.images.push_back({"emulator", file, false});
  return true;
}

} // namespace

std::string sympow::aot::moduleName(const LayerKernelRequest &request) {
  std::string name = "sympow_" + request.spec.variantName() + "_" +
                     runtime::formulationName(request.formulation);
  if (request.chunk)
    name += std::to_string(request.chunk);
  return name;
}

void sympow::aot::buildModule(ModuleBuild &build, const BuildOptions &options) {
  auto start = std::chrono::steady_clock::now();
  DialectRegistry registry;
  registerGPUDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Upstream reports some failures (a bad toolkit path) as errors without
  // failing: any error fails the build.
  int errors = 0;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << diag.getLocation() << ": " << diag << "\n";
    build.log += text;
    return success();
  });

  OwningOpRef<ModuleOp> module = buildLayerKernelModule(context, build.request);
  for (auto kernels : module->getOps<gpu::GPUModuleOp>())
    kernels.setSymName(build.name);
  if (failed(module->verify()))
    return;
  build.kernels = kernelInfos(*module, layerVariant(build.request));
  std::string moduleText = print(*module);
  if (options.dumpStages &&
      !writeFile(join(options.outDir, build.name + ".kernel.mlir"), moduleText,
                 build.log))
    return;

  bool allCached = true;
  for (const std::string &arch : options.archs) {
    std::string stem = build.name + "." + arch;
    bool useCache = !options.cacheDir.empty() && !options.dumpStages;
    std::string folder =
        useCache ? cacheFolder(options, arch, moduleText) : std::string();
    if (!useCache || !loadCached(folder, stem, options, build.report)) {
      allCached = false;
      if (!compileForArch(*module, build, arch, options) || errors)
        return;
      if (useCache) {
        llvm::json::Array mine;
        for (const llvm::json::Value &entry : build.report)
          if (entry.getAsObject()->getString("arch") == arch)
            mine.push_back(entry);
        storeCached(folder, stem, options, mine);
      }
    }
    build.images.push_back({arch, stem + ".cubin", false});
    build.images.push_back({arch, stem + ".ptx", true});
  }
  if (options.emulator) {
    bool cached = false;
    if (!buildEmulatorImage(build, options, cached))
      return;
    allCached = allCached && cached;
  }
  build.cached = allCached;
  build.ok = errors == 0;
  build.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
}
