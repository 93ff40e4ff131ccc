//===- Launch.cpp - Spreading the blocks of a launch over workers ---------===//

#include "Block.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <sstream>
#include <thread>

using namespace sympow::emu;

std::string Dim3::str() const {
  std::ostringstream os;
  os << "(" << x << ", " << y << ", " << z << ")";
  return os.str();
}

const char *sympow::emu::toString(ReportKind kind) {
  switch (kind) {
  case ReportKind::OutOfBounds:
    return "out-of-bounds";
  case ReportKind::Race:
    return "race";
  case ReportKind::DivergentBarrier:
    return "divergent-barrier";
  case ReportKind::DivergentWarpOp:
    return "divergent-warp-op";
  case ReportKind::UninitializedRead:
    return "uninitialized-read";
  case ReportKind::Misaligned:
    return "misaligned";
  case ReportKind::Timeout:
    return "timeout";
  case ReportKind::InvalidLaunch:
    return "invalid-launch";
  case ReportKind::Unsupported:
    return "unsupported";
  case ReportKind::AsyncOrder:
    return "async-order";
  }
  return "unknown";
}

std::string LaunchResult::message() const {
  std::string s;
  for (const Report &r : reports) {
    s += "emulator: " + r.message + "\n";
  }
  if (droppedReports)
    s += "emulator: " + std::to_string(droppedReports) + " more reports\n";
  return s;
}

namespace {

LaunchResult invalid(const Kernel &kernel, std::string message) {
  LaunchResult result;
  Report r;
  r.kind = ReportKind::InvalidLaunch;
  r.kernel = kernel.name;
  r.message = "invalid launch of kernel '" + kernel.name + "': " + message;
  result.reports.push_back(std::move(r));
  return result;
}

Dim3 blockIndex(uint64_t linear, Dim3 grid) {
  return {static_cast<uint32_t>(linear % grid.x),
          static_cast<uint32_t>((linear / grid.x) % grid.y),
          static_cast<uint32_t>(linear / (uint64_t(grid.x) * grid.y))};
}

} // namespace

LaunchResult sympow::emu::launch(const Kernel &kernel, Dim3 grid, Dim3 block,
                                 uint64_t dynamicSharedBytes, void **args,
                                 const LaunchOptions &options) {
  if (!kernel.entry)
    return invalid(kernel, "the kernel has no entry point");
  if (grid.count() == 0 || block.count() == 0)
    return invalid(kernel,
                   "empty grid " + grid.str() + " or block " + block.str());
  if (block.count() > 1024 || block.z > 64)
    return invalid(kernel, "block " + block.str() +
                               " has more than 1024 threads or z > 64");
  if (kernel.requiredBlock.x && !(kernel.requiredBlock == block))
    return invalid(kernel, "block " + block.str() + " differs from the " +
                               kernel.requiredBlock.str() +
                               " the kernel was built for (known_block_size)");
  if (grid.y > 65535 || grid.z > 65535)
    return invalid(kernel, "grid " + grid.str() + " has y or z > 65535");
  if (kernel.numArgs && !args)
    return invalid(kernel, "no arguments given");

  LaunchOptions effective = options;
  if (!kernel.checkedAccesses)
    effective.detectRaces = effective.detectUninitialized = false;
  LaunchContext context(kernel, grid, block, dynamicSharedBytes, args,
                        effective);
  uint64_t numBlocks = grid.count();
  unsigned workers = options.workers
                         ? options.workers
                         : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<uint64_t>(workers, numBlocks));
  std::atomic<uint64_t> next{0};
  auto work = [&] {
    BlockRunner runner(context);
    if (!runner.init()) {
      Report r;
      r.kind = ReportKind::InvalidLaunch;
      r.kernel = kernel.name;
      r.message =
          "could not allocate fiber stacks for kernel '" + kernel.name + "'";
      context.addReport(std::move(r));
      context.stop = true;
      return;
    }
    while (!context.stop.load(std::memory_order_relaxed)) {
      uint64_t i = next.fetch_add(1);
      if (i >= numBlocks)
        break;
      runner.run(blockIndex(i, grid), i);
    }
    if (runner.counting && runner.heaviestLinear != UINT64_MAX) {
      std::lock_guard<std::mutex> lock(context.mutex);
      for (auto &[site, p] : runner.profile) {
        BlockProfile &sum = context.profile[site];
        sum.runs += p.runs;
        sum.fp32Fma += p.fp32Fma;
        sum.fp32Alu += p.fp32Alu;
        sum.fp64 += p.fp64;
        sum.sfu += p.sfu;
        sum.intAlu += p.intAlu;
      }
      context.total += runner.total;
      if (context.heaviestLinear == UINT64_MAX ||
          heavierBlock(runner.heaviest, runner.heaviestLinear,
                       context.heaviest, context.heaviestLinear)) {
        context.heaviest = runner.heaviest;
        context.heaviestLinear = runner.heaviestLinear;
      }
    }
  };
  // The watchdog: stops the launch when the time is up.
  std::mutex doneMutex;
  std::condition_variable doneChanged;
  bool done = false;
  std::thread watchdog;
  if (options.timeoutSeconds > 0)
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lock(doneMutex);
      auto limit = std::chrono::duration<double>(options.timeoutSeconds);
      if (doneChanged.wait_for(lock, limit, [&] { return done; }))
        return;
      Report r;
      r.kind = ReportKind::Timeout;
      r.kernel = kernel.name;
      std::ostringstream os;
      os << "kernel '" << kernel.name << "' ran longer than "
         << options.timeoutSeconds
         << " s and was stopped (a thread spinning on a flag another block "
            "sets, or an endless loop?)";
      r.message = os.str();
      context.addReport(std::move(r));
      context.stop = true;
    });
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < workers; ++i)
      pool.emplace_back(work);
    for (std::thread &t : pool)
      t.join();
  }
  if (watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(doneMutex);
      done = true;
    }
    doneChanged.notify_all();
    watchdog.join();
  }
  LaunchCounts &counts = context.result.counts;
  counts.grid = {grid.x, grid.y, grid.z};
  counts.block = {block.x, block.y, block.z};
  counts.dynamicSharedBytes = dynamicSharedBytes;
  counts.staticSharedBytes = kernel.staticSharedBytes;
  if (options.countOperations) {
    counts.total = context.total;
    if (context.heaviestLinear != UINT64_MAX) {
      counts.heaviest = context.heaviest;
      Dim3 b = blockIndex(context.heaviestLinear, grid);
      counts.heaviestBlock = {b.x, b.y, b.z};
    }
    counts.globalLoadDistinctBytes = context.distinct.count(0);
    counts.globalStoreDistinctBytes = context.distinct.count(1);
    for (auto &[site, p] : context.profile) {
      context.result.profile.push_back(p);
      context.result.profile.back().site = site ? site : "(unnamed block)";
    }
    // Most operations first; equal ones by site, whatever the workers'
    // timing.
    std::sort(context.result.profile.begin(), context.result.profile.end(),
              [](const BlockProfile &a, const BlockProfile &b) {
                return std::make_tuple(b.operations(), a.site) <
                       std::make_tuple(a.operations(), b.site);
              });
  }
  // Deterministic order whatever the workers' timing.
  std::stable_sort(context.result.reports.begin(), context.result.reports.end(),
                   [](const Report &a, const Report &b) {
                     auto key = [](const Report &r) {
                       return std::make_tuple(r.block.z, r.block.y, r.block.x);
                     };
                     return key(a) < key(b);
                   });
  return std::move(context.result);
}
