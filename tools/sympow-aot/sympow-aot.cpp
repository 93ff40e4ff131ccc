//===- sympow-aot.cpp - Ahead-of-time kernel compiler ---------------------===//
//
// Builds the kernels of the requested variants in every formulation they ask
// for (formulation=all by default), for each CUDA architecture, and by
// default a library a trainer links:
//
//   sympow-aot --variant "p=2,d=64,dtype=bf16,gate=data,rope=learned" \
//              [--variant ...] [--config FILE] --arch sm_80,sm_90a --out DIR
//
// DIR/<module>.<arch>.cubin and .ptx per module (the kernels of one variant
// in one formulation), DIR/report.json (one entry per kernel and arch), and
// DIR/lib/libsympow_kernels.{a,so}, DIR/include/sympow_kernels.h,
// DIR/lib/cmake/SympowKernels (docs/KernelLibrary.md, docs/GPU.md).
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "Library.h"
#include "ModuleBuild.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <set>
#include <mutex>

using namespace sympow;
namespace cl = llvm::cl;

static cl::OptionCategory category("sympow-aot options");
static cl::list<std::string> variants(
    "variant",
    cl::desc("A variant: comma-separated key=value, e.g. "
             "\"p=2,d=64,e=64,hq=8,h=4,dtype=bf16,gate=data,rope=learned,"
             "layout=interleaved[,formulation=all|attention|chunked|"
             "recurrent][,chunk=C]\". Keys: p d e hq h dtype gate rope "
             "layout r base rate_scale L scale formulation chunk. "
             "Repeatable."),
    cl::cat(category));
static cl::opt<std::string>
    configFile("config",
               cl::desc("A JSON file of variant sets (docs/KernelLibrary.md)"),
               cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    archs("arch",
          cl::desc("Comma-separated CUDA architectures (default sm_80,sm_90a, "
                   "or the config file's \"arch\")"),
          cl::init("sm_80,sm_90a"), cl::cat(category));
static cl::opt<std::string> outDir("out", cl::desc("Output folder"),
                                   cl::value_desc("DIR"), cl::Required,
                                   cl::cat(category));
static cl::opt<bool> noLibrary(
    "no-library",
    cl::desc("Only the cubins, PTX and report.json: no emulator build, no "
             "libsympow_kernels"),
    cl::cat(category));
static cl::opt<bool>
    dumpStages("dump-stages",
               cl::desc("Also write the kernel IR, the NVVM IR and the PTX "
                        "(builds everything again, bypassing the cache)"),
               cl::cat(category));
static cl::opt<unsigned>
    jobs("jobs", cl::desc("Modules built in parallel (default: one per core)"),
         cl::init(0), cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Where built modules are cached (default "
                      "$SYMPOW_CACHE_DIR or ~/.cache/sympow)"),
             cl::cat(category));
static cl::opt<bool> noCache("no-cache", cl::desc("Build everything again"),
                             cl::cat(category));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to run"),
                                      cl::init("/usr/local/cuda/bin/ptxas"),
                                      cl::cat(category));
static cl::opt<std::string>
    libdevice("libdevice", cl::desc("libdevice bitcode to link"),
              cl::init("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"),
              cl::cat(category));

namespace {

bool writeReport(const std::vector<aot::ModuleBuild> &builds,
                 llvm::StringRef dir) {
  llvm::json::Array kernels;
  for (const aot::ModuleBuild &b : builds)
    for (const llvm::json::Value &entry : b.report)
      kernels.push_back(entry);
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "report.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "sympow-aot: cannot write " << path << ": " << ec.message()
                 << "\n";
    return false;
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"kernels", std::move(kernels)}}))
     << "\n";
  os.close();
  if (os.has_error()) { // a full disk, say: an error, not a fatal one
    llvm::errs() << "sympow-aot: cannot write " << path << ": "
                 << os.error().message() << "\n";
    os.clear_error();
    return false;
  }
  return true;
}

/// Every variant asked for, with where it came from.
bool collectVariants(std::vector<std::pair<std::string, std::string>> &out,
                     std::vector<std::string> &archList) {
  for (const std::string &v : variants)
    out.push_back({v, "--variant"});
  std::vector<std::string> configArchs;
  if (!configFile.empty()) {
    llvm::Expected<aot::Config> config = aot::readConfig(configFile);
    if (!config) {
      llvm::errs() << "sympow-aot: " << llvm::toString(config.takeError())
                   << "\n";
      return false;
    }
    out.insert(out.end(), config->variants.begin(), config->variants.end());
    configArchs = config->archs;
  }
  if (out.empty()) {
    llvm::errs() << "sympow-aot: no variants: give --variant or --config "
                    "(see --help)\n";
    return false;
  }
  if (archs.getNumOccurrences() || configArchs.empty()) {
    llvm::SmallVector<llvm::StringRef> list;
    llvm::StringRef(archs).split(list, ',', -1, false);
    for (llvm::StringRef a : list)
      archList.push_back(a.trim().str());
  } else {
    archList = configArchs;
  }
  if (archList.empty()) {
    llvm::errs() << "sympow-aot: --arch \"" << archs
                 << "\" names no architecture: give at least one, e.g. "
                    "sm_80\n";
    return false;
  }
  std::set<std::string> seenArchs;
  for (const std::string &arch : archList)
    if (!seenArchs.insert(arch).second) {
      llvm::errs() << "sympow-aot: architecture '" << arch
                   << "' is given twice\n";
      return false;
    }
  for (const std::string &arch : archList)
    if (!llvm::StringRef(arch).starts_with("sm_")) {
      llvm::errs() << "sympow-aot: architecture '" << arch
                   << "' is not of the form sm_XY (e.g. sm_80, sm_90a)\n";
      return false;
    }
  return true;
}

/// The modules of every variant, once each; false if a variant is wrong.
bool planModules(
    const std::vector<std::pair<std::string, std::string>> &variantTexts,
    std::vector<aot::ModuleBuild> &builds) {
  bool ok = true;
  std::map<std::string, size_t> seen;
  for (const auto &[text, origin] : variantTexts) {
    auto parsed = parseLayerVariant(text);
    if (!parsed) {
      llvm::errs() << "sympow-aot: " << origin << " \"" << text
                   << "\": " << llvm::toString(parsed.takeError()) << "\n";
      ok = false;
      continue;
    }
    // formulation=all asks for what the variant admits; a formulation asked
    // for by name must build.
    bool all = parsed->requests.size() > 1 ||
               !llvm::StringRef(text).contains("formulation=");
    for (const LayerKernelRequest &request : parsed->requests) {
      if (llvm::Error err = verifyLayerKernels(request)) {
        std::string why = llvm::toString(std::move(err));
        if (all && request.formulation != runtime::Formulation::Attention) {
          llvm::errs() << "sympow-aot: note: " << origin << " \"" << text
                       << "\": no "
                       << runtime::formulationName(request.formulation)
                       << " kernels: " << why << "\n";
          continue;
        }
        llvm::errs() << "sympow-aot: " << origin << " \"" << text
                     << "\": " << why << "\n";
        ok = false;
        continue;
      }
      std::string name = aot::moduleName(request);
      if (!seen.emplace(name, builds.size()).second)
        continue; // asked for twice
      aot::ModuleBuild build;
      build.name = name;
      build.request = request;
      build.variant = text;
      builds.push_back(std::move(build));
    }
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sympow ahead-of-time compiler: kernels of the given variants for each "
      "architecture (cubin + PTX), report.json, and a kernel library with "
      "the C API (lib/libsympow_kernels.{a,so}, include/sympow_kernels.h, "
      "lib/cmake/SympowKernels)\n");

  std::vector<std::pair<std::string, std::string>> variantTexts;
  aot::BuildOptions options;
  if (!collectVariants(variantTexts, options.archs))
    return 1;
  std::vector<aot::ModuleBuild> builds;
  // A wrong variant fails the run, but what can be built still is, so the
  // report shows everything else.
  bool ok = planModules(variantTexts, builds);
  // Everything is built in a staging folder inside --out and moved in at
  // the end, all together: a failed run leaves an existing folder as it was.
  bool outExisted = llvm::sys::fs::exists(outDir);
  bool outWasEmpty = true;
  if (outExisted) {
    std::error_code ec;
    llvm::sys::fs::directory_iterator it(outDir, ec);
    outWasEmpty = !ec && it == llvm::sys::fs::directory_iterator();
  }
  llvm::Expected<std::string> staging = aot::createStaging(outDir);
  if (!staging) {
    llvm::errs() << "sympow-aot: " << llvm::toString(staging.takeError())
                 << "\n";
    return 1;
  }
  // A failed run: the staging folder goes; only a folder that was new or
  // empty gets the report of what could be built.
  auto abandon = [&](bool keepReport) {
    if (keepReport && outWasEmpty) {
      llvm::SmallString<256> from(*staging), to(outDir);
      llvm::sys::path::append(from, "report.json");
      llvm::sys::path::append(to, "report.json");
      (void)llvm::sys::fs::rename(from, to);
    }
    aot::removeStaging(*staging);
    if (!outExisted)
      (void)llvm::sys::fs::remove(outDir); // only if still empty
  };
  options.outDir = *staging;
  options.cacheDir =
      noCache ? "" : (cacheDir.empty() ? defaultKernelCacheDir() : cacheDir);
  options.ptxas = ptxasPath;
  options.libdevice = libdevice;
  options.dumpStages = dumpStages;
  options.emulator = !noLibrary;

  auto start = std::chrono::steady_clock::now();
  llvm::errs() << "sympow-aot: " << builds.size() << " module(s) for "
               << llvm::join(options.archs, ", ")
               << (options.emulator ? " and the emulator" : "") << "\n";
  std::mutex print;
  size_t done = 0;
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
    for (aot::ModuleBuild &build : builds)
      pool.async([&] {
        aot::buildModule(build, options);
        std::lock_guard<std::mutex> lock(print);
        llvm::errs()
            << "[" << ++done << "/" << builds.size() << "] " << build.name
            << ": "
            << (!build.ok ? "FAILED"
                : build.cached
                    ? "cached"
                    : llvm::formatv("built in {0:f1} s", build.seconds).str())
            << "\n";
        if (!build.log.empty())
          llvm::errs() << build.log;
      });
    pool.wait();
  }
  for (const aot::ModuleBuild &build : builds)
    ok = ok && build.ok;
  bool reported = writeReport(builds, *staging);
  ok = reported && ok;
  if (!ok) {
    abandon(reported);
    llvm::errs() << "sympow-aot: some variants failed; "
                 << (outWasEmpty ? "only the report was written"
                                 : "the output folder is unchanged")
                 << "\n";
    return 1;
  }
  if (options.emulator) {
    if (llvm::Error e = aot::writeLibrary(builds, *staging)) {
      abandon(false);
      llvm::errs() << "sympow-aot: " << llvm::toString(std::move(e))
                   << "; the output folder is unchanged\n";
      return 1;
    }
  }
  if (llvm::Error e = aot::commitStaging(*staging, outDir)) {
    if (!outExisted)
      (void)llvm::sys::fs::remove(outDir);
    llvm::errs() << "sympow-aot: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  if (options.emulator)
    llvm::errs() << "sympow-aot: wrote " << outDir
                 << "/lib/libsympow_kernels.{a,so} with " << builds.size()
                 << " module(s)\n";
  llvm::errs() << llvm::formatv(
      "sympow-aot: done in {0:f1} s\n",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  return 0;
}
