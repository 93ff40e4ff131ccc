//===- sympow-bench.cpp - A layer's speed: predicted or measured ----------===//
//
// For a variant (sympow-aot's keys) and a sweep over T: each formulation's
// kernels, run once on the emulator (counts -> the GPU model's predicted
// time on --arch, with the bound and why) or timed on a GPU (CUDA events,
// L2 flushed between repetitions, median/min/max) next to the model's
// prediction. docs/sympow-bench.md; the model: docs/Performance.md.
//
//===----------------------------------------------------------------------===//

#include "TimingBackend.h"

#include "sympow/Compiler/Driver/LayerCheck.h"
#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/CudaBackend.h"
#include "sympow/Runtime/EmulatorBackend.h"
#include "sympow/Runtime/GpuModel.h"
#include "sympow/Runtime/HostLayer.h"
#include "sympow/Runtime/KernelEstimates.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unistd.h>

using namespace sympow;
namespace cl = llvm::cl;

static cl::OptionCategory category("sympow-bench options");
static cl::opt<std::string> variantText(
    "variant", cl::Required,
    cl::desc("The layer: sympow-aot's comma-separated key=value (p, d, e, "
             "hq, h, dtype, gate, rope, ..., formulation, chunk); e.g. "
             "\"p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data\". Without "
             "formulation= every formulation the variant admits is run"),
    cl::value_desc("KEYS"), cl::cat(category));
static cl::opt<std::string>
    tokensText("tokens", cl::init("4096"),
               cl::desc("Comma-separated sequence lengths T to sweep "
                        "(default 4096)"),
               cl::value_desc("T,T,..."), cl::cat(category));
static cl::opt<int64_t> batch("batch", cl::init(1),
                              cl::desc("Sequences B (default 1)"),
                              cl::cat(category));
static cl::opt<std::string>
    arch("arch", cl::init("sm_90a"),
         cl::desc("The GPU model to predict on: sm_90a (H100 SXM, default) "
                  "or sm_80 (A100); with --backend cuda the default is the "
                  "GPU's own"),
         cl::cat(category));
static cl::opt<std::string> backendName(
    "backend", cl::init("emulator"),
    cl::desc("emulator: run once on the CPU emulator and predict from its "
             "counts (default); cuda: time on this machine's GPU; model: "
             "predict from launches estimated from the sizes alone (what "
             "select-formulation uses; instant at any T, no check)"),
    cl::cat(category));
static cl::opt<std::string>
    direction("direction", cl::init("forward"),
              cl::desc("forward (default); backward is not implemented yet"),
              cl::cat(category));
static cl::opt<bool> withState(
    "state",
    cl::desc("Give the layer an initial state (chunked, recurrent); the "
             "recurrent formulation always has one (decoding)"),
    cl::cat(category));
static cl::opt<bool>
    noCheck("no-check",
            cl::desc("Skip the comparison of y (and the state) with the f64 "
                     "reference within SPEC's accuracy"),
            cl::cat(category));
static cl::opt<std::string>
    jsonPath("json", cl::desc("Also write the results as JSON to FILE"),
             cl::value_desc("FILE"), cl::cat(category));
static cl::opt<unsigned> profileTop(
    "profile", cl::init(0), cl::value_desc("N"),
    cl::desc("emulator: after each kernel, its N counted MLIR blocks with the "
             "most arithmetic (runs, operations by unit, each block named by "
             "its nesting and first ops; docs/Emulator.md, \"Profiles\")"),
    cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::init(1),
                              cl::desc("Seed of the random inputs"),
                              cl::cat(category));
static cl::opt<unsigned>
    repeat("repeat", cl::init(20),
           cl::desc("cuda: timed calls of the layer, each after a 256 MB "
                    "L2 flush; median/min/max over them (default 20)"),
           cl::cat(category));
static cl::opt<unsigned>
    warmup("warmup", cl::init(3),
           cl::desc("cuda: untimed warm-up calls (default 3)"),
           cl::cat(category));

namespace {

int usageError(const llvm::Twine &message) {
  llvm::errs() << "sympow-bench: error: " << message << "\n";
  return 2;
}

void progress(const llvm::Twine &message) {
  llvm::errs() << "sympow-bench: " << message << "\n";
}

std::string ms(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", seconds * 1e3);
  return buffer;
}

llvm::json::Array dims(const std::array<uint32_t, 3> &d) {
  return llvm::json::Array{d[0], d[1], d[2]};
}

llvm::json::Object countsJson(const OpCounts &c) {
  llvm::json::Object o;
  forEachCount(
      c, [&](const char *name, const uint64_t &v) { o[name] = int64_t(v); });
  return o;
}

llvm::json::Object predictionJson(const KernelPrediction &p) {
  return llvm::json::Object{
      {"seconds", p.seconds},
      {"bound", boundName(p.bound)},
      {"explanation", p.explanation},
      {"occupancy", p.occupancy},
      {"blocks_per_sm", p.blocksPerSM},
      {"occupancy_limit", p.occupancyLimit},
      {"active_sms", p.activeSMs},
      {"waves", p.waves},
      {"units", llvm::json::Object{{"tensor", p.tensor},
                                   {"fp32", p.fp32},
                                   {"fp64", p.fp64},
                                   {"sfu", p.sfu},
                                   {"int", p.intAlu},
                                   {"issue", p.issue},
                                   {"shared", p.shared},
                                   {"dram", p.dram},
                                   {"latency", p.latency},
                                   {"heaviest_block", p.heaviestBlock}}}};
}

/// Host memory a run at `sizes` needs, roughly: the inputs, y and the
/// reference's y in f64 with their staging copies, the state, and on the
/// emulator the chunk states (device memory there is host memory).
double hostBytes(const LayerSizes &s, runtime::Formulation formulation,
                 int64_t chunk, bool emulator) {
  double tokens = double(s.batch) * double(s.seqLen);
  double perToken = double(s.queryHeads) * (s.headDim + s.valueDim) +
                    double(s.keyHeads) * (s.headDim + s.valueDim + 2);
  double state =
      double(s.batch) * s.keyHeads * embeddingDim(s) * (s.valueDim + 1);
  double bytes = tokens * perToken * 8 * 4 + state * 8 * 4;
  if (emulator && formulation == runtime::Formulation::Chunked && chunk > 0)
    bytes += std::ceil(double(s.seqLen) / chunk) * state * 4;
  return bytes;
}

/// The machine's physical memory in bytes (0 if unknown).
double physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

/// Median, min and max of `x` (not empty).
struct Spread {
  double median, min, max;
  size_t count;
};
Spread spread(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  size_t n = x.size();
  double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  return {median, x.front(), x.back(), n};
}

/// One kernel's row.
struct KernelRow {
  std::string name;
  LaunchCounts counts; // emulator: counted; cuda: estimated from the sizes
  KernelResources resources;
  KernelPrediction prediction;
  std::optional<Spread> measured;
  std::string profile; // --profile: the kernel's heaviest blocks
};

void printRun(const std::string &formulation, int64_t T,
              const std::vector<KernelRow> &rows, double predicted,
              double floor, const std::string &dominant,
              std::optional<Spread> measured, const Cost &cost,
              const std::string &check) {
  llvm::outs() << "\n"
               << formulation << ", B = " << batch << ", T = " << T
               << (check.empty() ? "" : " (" + check + ")") << "\n";
  char line[512];
  std::snprintf(line, sizeof line,
                "  %-13s %-13s %5s %6s %7s %6s %6s %-14s %11s%s\n", "kernel",
                "grid", "block", "regs", "smem", "occup", "waves", "bound",
                "predicted", measured ? "    measured" : "");
  llvm::outs() << line;
  for (const KernelRow &r : rows) {
    const auto &g = r.counts.grid;
    std::string grid = std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
                       std::to_string(g[2]);
    std::snprintf(
        line, sizeof line,
        "  %-13s %-13s %5llu %6d %7lld %5.0f%% %6.2g %-14s %8s ms",
        r.name.c_str(), grid.c_str(),
        (unsigned long long)r.counts.threadsPerBlock(), r.resources.registers,
        (long long)(r.resources.sharedBytes + r.counts.dynamicSharedBytes),
        r.prediction.occupancy * 100, r.prediction.waves,
        boundName(r.prediction.bound), ms(r.prediction.seconds).c_str());
    llvm::outs() << line;
    if (r.measured)
      llvm::outs() << "  " << ms(r.measured->median) << " ms ["
                   << ms(r.measured->min) << ", " << ms(r.measured->max) << "]";
    llvm::outs() << "\n";
  }
  for (const KernelRow &r : rows) {
    const OpCounts &t = r.counts.total, &h = r.counts.heaviest;
    llvm::outs() << "  " << r.name << ": " << r.prediction.explanation << "\n";
    std::snprintf(
        line, sizeof line,
        "    global %.3g MB loaded (%.3g MB distinct), %.3g MB stored "
        "(%.3g MB distinct); "
        "shared %.3g MB; mma %llu, wgmma %llu; fp32 %.3g M, sfu %.3g M; "
        "heaviest block: %llu global loads, %llu mma, %llu wgmma, %llu "
        "barriers\n",
        t.globalLoadBytes / 1e6, r.counts.globalLoadDistinctBytes / 1e6,
        t.globalStoreBytes / 1e6, r.counts.globalStoreDistinctBytes / 1e6,
        (t.sharedLoadBytes + t.sharedStoreBytes) / 1e6,
        (unsigned long long)(t.mma[0] + t.mma[1] + t.mma[2] + t.mma[3]),
        (unsigned long long)t.wgmma, (t.fp32Fma + t.fp32Alu) / 1e6, t.sfu / 1e6,
        (unsigned long long)h.globalLoads,
        (unsigned long long)(h.mma[0] + h.mma[1] + h.mma[2] + h.mma[3]),
        (unsigned long long)h.wgmma, (unsigned long long)h.barriers);
    llvm::outs() << line << r.profile;
  }
  llvm::outs() << "  layer: predicted " << ms(predicted) << " ms on "
               << GpuSpec::forArch(arch)->name << " (floor " << ms(floor)
               << " ms); slowest kernel " << dominant;
  llvm::outs() << "\n";
  if (measured) {
    std::snprintf(line, sizeof line,
                  "  measured: median %s ms (min %s, max %s; %zu "
                  "repetitions), %.3g TFLOP/s, %.3g GB/s of the layer's "
                  "minimal work; predicted/measured %.2f\n",
                  ms(measured->median).c_str(), ms(measured->min).c_str(),
                  ms(measured->max).c_str(), measured->count,
                  cost.flops / measured->median / 1e12,
                  cost.bytes / measured->median / 1e9,
                  predicted / measured->median);
    llvm::outs() << line;
  }
}

/// Predicts every row, prints the run and returns its JSON.
llvm::json::Value report(std::vector<KernelRow> &rows, const LayerSizes &sizes,
                         const LayerKernelRequest &request,
                         const std::string &formulation, int64_t T, bool state,
                         std::optional<Spread> measuredLayer,
                         const std::string &checkText, const GpuSpec &gpu) {
  double predicted = 0, slowest = -1;
  std::string dominant;
  llvm::json::Array kernelsJson;
  for (KernelRow &r : rows) {
    r.prediction = predictKernel(r.counts, r.resources, gpu);
    predicted += r.prediction.seconds;
    if (r.prediction.seconds > slowest) {
      slowest = r.prediction.seconds;
      dominant = r.name;
    }
    llvm::json::Object k{
        {"name", r.name},
        {"grid", dims(r.counts.grid)},
        {"block", dims(r.counts.block)},
        {"registers", r.resources.registers},
        {"shared_bytes", r.resources.sharedBytes},
        {"counts_source", backendName == "emulator" ? "emulator" : "estimated"},
        {"counts",
         llvm::json::Object{
             {"total", countsJson(r.counts.total)},
             {"heaviest", countsJson(r.counts.heaviest)},
             {"heaviest_block", dims(r.counts.heaviestBlock)},
             {"global_load_distinct_bytes",
              int64_t(r.counts.globalLoadDistinctBytes)},
             {"global_store_distinct_bytes",
              int64_t(r.counts.globalStoreDistinctBytes)},
             {"static_shared_bytes", int64_t(r.counts.staticSharedBytes)},
             {"dynamic_shared_bytes", int64_t(r.counts.dynamicSharedBytes)}}},
        {"prediction", predictionJson(r.prediction)}};
    if (r.measured) {
      // The kernel's distinct global bytes (estimated from the sizes) over
      // its median time: the DRAM bandwidth it reached, at least.
      double distinct = double(r.counts.globalLoadDistinctBytes +
                               r.counts.globalStoreDistinctBytes);
      k["measured"] = llvm::json::Object{
          {"median_seconds", r.measured->median},
          {"min_seconds", r.measured->min},
          {"max_seconds", r.measured->max},
          {"repetitions", int64_t(r.measured->count)},
          {"distinct_gbps", distinct / r.measured->median / 1e9},
          {"predicted_over_measured",
           r.prediction.seconds / r.measured->median}};
    }
    kernelsJson.push_back(std::move(k));
  }
  Cost cost = minimalCost(sizes, request.formulation, request.chunk);
  double floor =
      rooflineSeconds(cost.flops, cost.bytes, sizes.elementBytes, gpu);
  printRun(formulation, T, rows, predicted, floor, dominant, measuredLayer,
           cost, checkText);

  llvm::json::Object layerJson{{"predicted_seconds", predicted},
                               {"floor_seconds", floor},
                               {"flops", cost.flops},
                               {"bytes", cost.bytes},
                               {"dominant_kernel", dominant}};
  if (measuredLayer) {
    // The layer's time in one repetition is the sum of its kernels' times
    // in that repetition; median/min/max over the repetitions.
    double median = measuredLayer->median;
    layerJson["measured_seconds"] = median;
    layerJson["measured"] =
        llvm::json::Object{{"median_seconds", median},
                           {"min_seconds", measuredLayer->min},
                           {"max_seconds", measuredLayer->max},
                           {"repetitions", int64_t(measuredLayer->count)}};
    layerJson["tflops"] = cost.flops / median / 1e12;
    layerJson["gbps"] = cost.bytes / median / 1e9;
    layerJson["predicted_over_measured"] = predicted / median;
  }
  llvm::json::Object run{{"T", T},
                         {"B", batch.getValue()},
                         {"formulation", formulation},
                         {"chunk", request.chunk},
                         {"state", state},
                         {"kernels", std::move(kernelsJson)},
                         {"layer", std::move(layerJson)}};
  if (!noCheck)
    run["check"] = llvm::json::Object{
        {"passed", checkText.rfind("matches", 0) == 0}, {"message", checkText}};
  return llvm::json::Value(std::move(run));
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sympow-bench: a layer's speed, predicted from the emulator's counts "
      "or measured on a GPU\n\n"
      "  sympow-bench --variant "
      "\"p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data\" "
      "\\\n      --tokens 4096,16384 --arch sm_90a [--backend cuda] "
      "[--json out.json]\n\n"
      "Every kernel of every formulation the variant admits, per T: grid, "
      "registers, occupancy, waves, what bounds it and why, the predicted\n"
      "time on the GPU model (docs/Performance.md) and, on a GPU, the "
      "measured one. The emulator is slow (seconds at a few thousand\n"
      "tokens); counts at long T follow from short ones (CountsScaling).\n"
      "Exit status: 0; 1 when a run does not match the reference; 2 for bad "
      "input, a failed build or run, or --backend cuda without a GPU.\n");

  if (direction != "forward")
    return usageError(direction == "backward"
                          ? "--direction backward: the backward kernels are "
                            "not implemented yet"
                          : "--direction must be forward or backward, got '" +
                                direction + "'");
  const GpuSpec *gpu = GpuSpec::forArch(arch);
  if (!gpu)
    return usageError("no GPU model for --arch '" + arch +
                      "': use sm_90a (H100) or sm_80 (A100)");
  if (backendName != "emulator" && backendName != "cuda" &&
      backendName != "model")
    return usageError("--backend must be emulator, cuda or model, got '" +
                      backendName + "'");
  if (profileTop > 0 && backendName != "emulator")
    return usageError("--profile counts what the emulator runs: it needs "
                      "--backend emulator, got '" +
                      backendName + "'");
  if (batch < 1)
    return usageError("--batch must be >= 1, got " + std::to_string(batch));
  if (backendName == "cuda" && repeat < 1)
    return usageError("--repeat must be >= 1");
  std::vector<int64_t> tokens;
  for (llvm::StringRef piece : llvm::split(tokensText, ',')) {
    int64_t t = 0;
    if (piece.trim().getAsInteger(10, t) || t < 1)
      return usageError("--tokens takes positive integers, got '" + piece +
                        "'");
    tokens.push_back(t);
  }
  auto parsed = parseLayerVariant(variantText);
  if (!parsed)
    return usageError(llvm::toString(parsed.takeError()));
  // What the compiler would refuse (a chunk the kernels do not take, ...),
  // refused before anything runs, the model's predictions included.
  for (const LayerKernelRequest &request : parsed->requests)
    if (llvm::Error error = verifyLayerKernels(request))
      return usageError(llvm::toString(std::move(error)));
  if (!jsonPath.empty()) {
    // Found out now, not after a sweep that took an hour.
    llvm::SmallString<128> folder(llvm::sys::path::parent_path(jsonPath));
    if (folder.empty())
      folder = ".";
    if (!llvm::sys::fs::is_directory(folder) ||
        llvm::sys::fs::access(folder, llvm::sys::fs::AccessMode::Write))
      return usageError("cannot write --json '" + jsonPath + "': '" + folder +
                        "' is not a writable folder");
    if (llvm::sys::fs::is_directory(jsonPath.getValue()))
      return usageError("cannot write --json '" + jsonPath +
                        "': it is a folder");
  }

  // The backend first: without a GPU there is nothing to time.
  std::unique_ptr<runtime::Backend> device;
  if (backendName == "cuda") {
    auto cuda = runtime::createCudaBackend();
    if (cuda.isError())
      return usageError("--backend cuda: " + cuda.message() +
                        " (--backend emulator predicts without a GPU)");
    device = std::move(cuda.value());
    // Predict on the model of the GPU at hand unless --arch says otherwise.
    std::string own = device->arch() == "sm_90" ? "sm_90a" : device->arch();
    if (arch.getNumOccurrences() == 0 && GpuSpec::forArch(own)) {
      arch.setValue(own);
      gpu = GpuSpec::forArch(own);
    } else if (own != arch.getValue()) {
      progress("warning: the GPU is " + device->arch() +
               "; predictions are for --arch " + arch.getValue() + " (" +
               gpu->name + ")");
    }
  } else {
    device = runtime::createEmulatorBackend(
        profileTop > 0 ? runtime::EmulatorCounting::Profile
                       : runtime::EmulatorCounting::On);
  }
  bool onGpu = backendName == "cuda";
  bool modelOnly = backendName == "model";
  if (modelOnly)
    noCheck = true;

  llvm::json::Array runs;
  bool allChecked = true;
  std::string cache = defaultKernelCacheDir();
  for (const LayerKernelRequest &request : parsed->requests) {
    runtime::LayerVariant variant = layerVariant(request);
    std::string formulation = runtime::formulationName(request.formulation);
    if (modelOnly) {
      for (int64_t T : tokens) {
        bool state =
            withState || request.formulation == runtime::Formulation::Recurrent;
        LayerSizes sizes = layerSizes(variant, batch, T, state);
        std::vector<KernelRow> rows;
        for (const KernelEstimate &e :
             estimateKernels(sizes, request.formulation, request.chunk))
          rows.push_back({e.kernel, e.counts, e.resources, {}, std::nullopt});
        runs.push_back(report(rows, sizes, request, formulation, T, state,
                              std::nullopt, "", *gpu));
      }
      continue;
    }
    // Every T fits in memory, before anything is built.
    for (int64_t T : tokens) {
      bool state = (withState ||
                    request.formulation == runtime::Formulation::Recurrent) &&
                   request.formulation != runtime::Formulation::Attention;
      double needed = hostBytes(layerSizes(variant, batch, T, state),
                                request.formulation, request.chunk, !onGpu);
      if (double have = physicalMemory(); have > 0 && needed > have)
        return usageError(
            llvm::formatv("T = {0}: the run needs about {1:F1} GB of host "
                          "memory and this machine has {2:F1} GB; use "
                          "shorter T (counts at long T follow from short "
                          "ones) or --backend model",
                          T, needed / 1e9, have / 1e9)
                .str());
    }
    // On a GPU the kernels run built for it, and their resources are
    // those of that build; on the emulator, those of a build for --arch.
    std::string buildArch =
        onGpu ? (device->arch() == "sm_90" ? "sm_90a" : device->arch())
              : arch.getValue();
    progress("building the " + formulation + " kernels of " +
             request.spec.variantName() + " for " + buildArch +
             " (ptxas) and " + backendName.getValue());
    auto usage = kernelResources(request, buildArch);
    if (!usage)
      return usageError(llvm::toString(usage.takeError()));
    std::map<std::string, KernelResources> resources;
    for (const PtxasUsage &u : *usage)
      resources[u.kernel] = {int(u.registers), u.sharedBytes};
    std::vector<std::string> archs;
    if (onGpu)
      archs = {buildArch};
    auto compiled = compileLayerKernels(
        request, onGpu ? KernelTarget::Cuda : KernelTarget::EmulatorShared,
        archs, cache);
    if (!compiled)
      return usageError(llvm::toString(compiled.takeError()));
    // Every launch goes through `timing`: on a GPU for its CUDA events, on
    // the emulator for progress kernel by kernel (it can take minutes).
    bench::TimingBackend::Hook hook;
    if (!onGpu)
      hook = [](const std::string &kernel, const runtime::LaunchConfig &c,
                std::optional<double> seconds) {
        if (!seconds)
          progress("  " + kernel + ": " + std::to_string(c.grid.x) + "x" +
                   std::to_string(c.grid.y) + "x" + std::to_string(c.grid.z) +
                   " blocks of " +
                   std::to_string(c.block.x * c.block.y * c.block.z) +
                   " threads on the emulator");
        else
          progress("  " + kernel + ": done in " + ms(*seconds / 1e3) + " s");
      };
    bench::TimingBackend timing(*device, hook);
    runtime::KernelLibrary library(timing, (*compiled)->images(),
                                   (*compiled)->infos());
    for (int64_t T : tokens) {
      // recurrent_output does not run for one token.
      std::vector<std::string> names = runtime::launchedKernelNames(variant, T);
      bool state =
          withState || request.formulation == runtime::Formulation::Recurrent;
      if (state && request.formulation == runtime::Formulation::Attention) {
        progress("skipping --state for the attention formulation");
        state = false;
      }
      LayerSizes sizes = layerSizes(variant, batch, T, state);
      if (!onGpu &&
          double(T) * batch * std::max(sizes.queryHeads, sizes.keyHeads) > 4096)
        progress("warning: T = " + std::to_string(T) +
                 ": the emulator runs every thread of every block, this "
                 "takes long (about 40 s for the chunked kernels at d = 64, "
                 "8 heads, T = 1024, growing with B * T * heads; the "
                 "recurrent formulation is the slowest; counts at long T "
                 "follow from short ones)");
      progress(formulation + ", T = " + std::to_string(T) + ": running on " +
               backendName.getValue());
      check::LayerCase layer =
          check::randomLayer(request.spec, batch, T, seed, state);

      std::vector<KernelRow> rows;
      std::optional<Spread> measuredLayer;
      Result<runtime::HostOutputs> out = Status::error("not run");
      if (!onGpu) {
        out = runtime::runLayerFromHost(timing, library, variant, layer);
        if (out.isError())
          return usageError("the emulator run failed: " + out.message());
        (void)timing.takeTimes();
        (void)timing.takeNames();
        for (runtime::EmulatorLaunch &launch :
             runtime::takeEmulatorLaunches(*device))
          rows.push_back(
              {launch.kernel,
               launch.counts,
               resources[launch.kernel],
               {},
               std::nullopt,
               profileTop > 0
                   ? profileTable(launch.kernel, launch.profile, profileTop)
                   : std::string()});
      } else {
        // Each repetition writes 256 MB just before its first kernel (after
        // the inputs are uploaded), so no kernel finds its inputs in L2
        // (50 MB on an H100, 40 MB on an A100).
        constexpr size_t kFlushBytes = size_t(256) << 20;
        auto flush = device->allocate(kFlushBytes);
        if (flush.isError())
          return usageError("cannot allocate the 256 MB L2 flush buffer: " +
                            flush.message());
        progress("  " + std::to_string(warmup) + " warm-up and " +
                 std::to_string(repeat) + " timed calls");
        std::vector<std::vector<double>> times(names.size());
        std::vector<double> layerTimes;
        for (unsigned i = 0; i < warmup + repeat; ++i) {
          timing.flushBeforeNextLaunch(flush.value(), kFlushBytes);
          out = runtime::runLayerFromHost(timing, library, variant, layer);
          if (out.isError()) {
            (void)device->release(flush.value());
            return usageError("the GPU run failed: " + out.message());
          }
          std::vector<double> t = timing.takeTimes();
          std::vector<std::string> launched = timing.takeNames();
          if (launched != names) {
            (void)device->release(flush.value());
            return usageError("the layer launched " +
                              llvm::join(launched, ", ") + ", expected " +
                              llvm::join(names, ", "));
          }
          if (i < warmup)
            continue;
          double total = 0;
          for (size_t k = 0; k < names.size(); ++k) {
            times[k].push_back(t[k]);
            total += t[k];
          }
          layerTimes.push_back(total);
        }
        (void)device->release(flush.value());
        std::vector<KernelEstimate> estimates =
            estimateKernels(sizes, request.formulation, request.chunk);
        for (size_t k = 0; k < names.size(); ++k) {
          KernelRow row{names[k], {}, resources[names[k]], {}, std::nullopt};
          for (const KernelEstimate &e : estimates)
            if (e.kernel == names[k])
              row.counts = e.counts;
          row.measured = spread(times[k]);
          rows.push_back(row);
        }
        measuredLayer = spread(layerTimes);
      }

      std::string checkText;
      if (!noCheck) {
        check::KernelResult got{"", out->y, out->s, out->z, out->c};
        progress("  checking y against the f64 reference on the CPU "
                 "(--no-check skips it)");
        check::ReferenceResult want = check::runReference(request.spec, layer);
        std::vector<check::ErrorAgainstBound> errors;
        if (want.error.empty())
          errors = check::errors(got, want, request.spec.dtype, state);
        std::string problem = want.error.empty()
                                  ? check::mismatch(errors)
                                  : "the reference failed: " + want.error;
        checkText = problem.empty()
                        ? "matches the reference within SPEC (error / bound: " +
                              check::errorShares(errors) + ")"
                        : "DOES NOT match the reference: " + problem;
        allChecked &= problem.empty();
      }

      runs.push_back(report(rows, sizes, request, formulation, T, state,
                            measuredLayer, checkText, *gpu));
    }
  }

  if (!jsonPath.empty()) {
    llvm::json::Object root{{"tool", "sympow-bench"},
                            {"variant", variantText.getValue()},
                            {"arch", arch.getValue()},
                            {"gpu", gpu->name},
                            {"backend", backendName.getValue()},
                            {"direction", direction.getValue()},
                            {"runs", std::move(runs)}};
    if (onGpu)
      root["device_arch"] = device->arch();
    std::error_code ec;
    llvm::raw_fd_ostream file(jsonPath, ec);
    if (ec)
      return usageError("cannot write '" + jsonPath + "': " + ec.message());
    file << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  }
  if (!allChecked) {
    llvm::errs() << "sympow-bench: error: a run does not match the "
                    "reference (see above)\n";
    return 1;
  }
  return 0;
}
