//===- Block.cpp - Running one thread block as fibers ---------------------===//

#include "Block.h"
#include "Coalescing.h"
#include "Warp.h"
#include "Warpgroup.h"

#include "sympow/Emulator/ABI.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <unordered_map>

using namespace sympow::emu;

thread_local ThreadState *sympow::emu::currentThread = nullptr;

namespace {

const char *spaceName(int space) {
  switch (space) {
  case abi::Global:
    return "global";
  case abi::Workgroup:
    return "workgroup";
  case abi::Private:
    return "private";
  default:
    return "unknown";
  }
}

std::string siteText(const char *site) { return site ? site : "<unknown op>"; }

/// The entry every fiber starts at.
void fiberMain() {
  ThreadState *t = currentThread;
  fiberStarted(&t->fiber.context);
  t->runner->kernelBody(*t);
}

} // namespace

void LaunchContext::addReport(Report report) {
  std::lock_guard<std::mutex> lock(mutex);
  if (result.reports.size() >= options.maxReports) {
    ++result.droppedReports;
    return;
  }
  result.reports.push_back(std::move(report));
}

BlockRunner::BlockRunner(LaunchContext &launch) : launch(launch) {}

bool BlockRunner::init() {
  threads.resize(launch.block.count());
  for (uint32_t i = 0; i < threads.size(); ++i) {
    ThreadState &t = threads[i];
    t.linear = i;
    t.tid = threadIndex(i);
    t.runner = this;
    if (!t.fiber.stack.allocate(launch.options.stackBytes))
      return false;
  }
  staticBytes = (launch.kernel.staticSharedBytes + 15) / 16 * 16;
  sharedBytes = staticBytes + launch.dynamicSharedBytes;
  // 128-byte alignment, as the GPU gives; one spare byte keeps the pointer
  // valid when the size is 0.
  shared.assign(sharedBytes + 128 + 1, 0);
  auto raw = reinterpret_cast<uintptr_t>(shared.data());
  sharedBase = reinterpret_cast<uint8_t *>((raw + 127) / 128 * 128);
  if (launch.options.detectRaces)
    shadow.assign(sharedBytes, Shadow());
  counting = launch.options.countOperations;
  profiling = counting && launch.options.profileBlocks;

  unsigned n = launch.kernel.numArgs;
  args.assign(launch.args, launch.args + n);
  workgroup[0] = {sharedBase, sharedBase, 0, static_cast<int64_t>(staticBytes),
                  1};
  workgroup[1] = {sharedBase + staticBytes, sharedBase + staticBytes, 0,
                  static_cast<int64_t>(launch.dynamicSharedBytes), 1};
  for (Descriptor &d : workgroup) {
    args.push_back(&d.allocated);
    args.push_back(&d.aligned);
    args.push_back(&d.offset);
    args.push_back(&d.size);
    args.push_back(&d.stride);
  }
  return true;
}

Dim3 BlockRunner::threadIndex(uint32_t linear) const {
  Dim3 b = launch.block;
  return {linear % b.x, (linear / b.x) % b.y, linear / (b.x * b.y)};
}

std::string BlockRunner::where(const ThreadState *t) const {
  std::string s = "kernel '" + launch.kernel.name + "', block " + blockId.str();
  if (t)
    s += ", thread " + t->tid.str();
  return s;
}

void BlockRunner::report(ReportKind kind, ThreadState *t, std::string message,
                         const char *site) {
  Report r;
  r.kind = kind;
  r.kernel = launch.kernel.name;
  r.block = blockId;
  if (t)
    r.thread = t->tid;
  r.site = site ? site : "";
  r.message = std::move(message);
  launch.addReport(std::move(r));
}

void BlockRunner::kernelBody(ThreadState &t) {
  launch.kernel.entry(args.data());
  // A kernel's end completes its copies, committed or not.
  if (t.pending.size() > (t.groupEnds.empty() ? 0 : t.groupEnds.back()))
    t.groupEnds.push_back(t.pending.size());
  completeCopies(t, 0);
  t.groupEnds.clear();
  t.pending.clear();
  t.status = ThreadStatus::Done;
  exitFiber(&t.fiber.context, &scheduler);
}

void BlockRunner::yield(ThreadState &t) {
  switchFiber(&t.fiber.context, &scheduler);
  if (blockFailed || launch.stop.load(std::memory_order_relaxed))
    abortThread(t);
}

void BlockRunner::abortThread(ThreadState &t) {
  t.status = ThreadStatus::Aborted;
  blockFailed = true;
  exitFiber(&t.fiber.context, &scheduler);
}

void BlockRunner::profileBlock(const char *site, int64_t fp32Fma,
                               int64_t fp32Alu, int64_t fp64, int64_t sfu,
                               int64_t intAlu) {
  BlockProfile &p = profile[site];
  ++p.runs;
  p.fp32Fma += static_cast<uint64_t>(fp32Fma);
  p.fp32Alu += static_cast<uint64_t>(fp32Alu);
  p.fp64 += static_cast<uint64_t>(fp64);
  p.sfu += static_cast<uint64_t>(sfu);
  p.intAlu += static_cast<uint64_t>(intAlu);
}

void BlockRunner::run(Dim3 block, uint64_t linear) {
  blockId = block;
  counts = OpCounts();
  runBlock();
  if (!counting)
    return;
  total += counts;
  if (heaviestLinear == UINT64_MAX ||
      heavierBlock(counts, linear, heaviest, heaviestLinear)) {
    heaviest = counts;
    heaviestLinear = linear;
  }
}

void BlockRunner::runBlock() {
  blockFailed = false;
  blockEpoch = ++epoch;
  if (launch.options.detectRaces)
    for (Shadow &s : shadow) {
      s.asyncPending = 0; // an aborted block may leave copies behind
      s.bulkSerial = 0;   // mbarrier serials start again
    }
  mbarriers.clear();
  mbarrierAt.clear();
  if (sharedBytes)
    std::memset(sharedBase, launch.options.fillByte, sharedBytes);
  for (ThreadState &t : threads) {
    t.status = ThreadStatus::Ready;
    t.op = WarpOp();
    t.pending.clear();
    t.groupEnds.clear();
    t.groupsCommitted = 0;
    for (WgmmaResult &r : t.wgmma)
      r = WgmmaResult();
    t.wgmmaIssued = 0;
    t.wgmmaCommitted = t.wgmmaCompleted = 0;
    t.wgmmaFenced = false;
    t.proxyFences = 0;
    t.observedPhases.clear();
    t.waitSerial = 0;
    t.accesses.clear();
    t.fiber.reset(fiberMain, &scheduler);
  }
  unsigned numWarps = (threads.size() + 31) / 32;
  while (true) {
    bool ranAny = false;
    for (ThreadState &t : threads) {
      if (t.status != ThreadStatus::Ready)
        continue;
      ranAny = true;
      currentThread = &t;
      switchFiber(&scheduler, &t.fiber.context);
      currentThread = nullptr;
      if (blockFailed || launch.stop.load(std::memory_order_relaxed))
        return;
    }
    if (counting)
      countWarpAccesses();
    // Warp collectives whose lanes have all arrived: every lane of the warp
    // for ldmatrix and mma.sync, the first `width` lanes for a shuffle (its
    // member mask, as the NVVM lowering builds it).
    bool released = false;
    for (unsigned w = 0; w < numWarps; ++w) {
      size_t begin = w * 32, end = std::min<size_t>(begin + 32, threads.size());
      size_t first = begin;
      while (first < end && threads[first].status != ThreadStatus::AtWarpOp)
        ++first;
      if (first == end)
        continue;
      if (threads[first].op.kind == WarpOpKind::Wgmma) {
        // A warpgroup collective: the four warps of 128 threads.
        size_t groupBegin = w / 4 * warpgroup::kThreads;
        size_t groupEnd =
            std::min<size_t>(groupBegin + warpgroup::kThreads, threads.size());
        bool all = groupEnd - groupBegin == warpgroup::kThreads;
        for (size_t i = groupBegin; i < groupEnd && all; ++i)
          all = threads[i].status == ThreadStatus::AtWarpOp &&
                threads[i].op.kind == WarpOpKind::Wgmma;
        if (!all && groupEnd - groupBegin < warpgroup::kThreads) {
          report(ReportKind::Unsupported, &threads[first],
                 "warpgroup MMA in a partial warpgroup in " +
                     where(&threads[first]) + ": " +
                     siteText(threads[first].op.site) +
                     " needs blocks of a multiple of 128 threads",
                 threads[first].op.site);
          blockFailed = true;
          launch.stop = true;
          return;
        }
        if (!all)
          continue;
        runWarpgroupOp(static_cast<unsigned>(w / 4));
        if (blockFailed)
          return;
        released = true;
        continue;
      }
      size_t needed = end - begin;
      if (threads[first].op.kind == WarpOpKind::Shuffle)
        needed = std::min<size_t>(needed, static_cast<size_t>(std::clamp(
                                              threads[first].op.width, 1, 32)));
      bool all = true;
      for (size_t i = begin; i < begin + needed && all; ++i)
        all = threads[i].status == ThreadStatus::AtWarpOp;
      if (!all)
        continue;
      runWarpOp(w);
      if (blockFailed)
        return;
      released = true;
    }
    // mbarrier waits whose phase has completed since.
    for (ThreadState &t : threads) {
      if (t.status != ThreadStatus::AtMbarrier)
        continue;
      const Mbarrier &m = mbarriers[t.waitSerial - 1];
      if ((m.phase & 1) == static_cast<uint64_t>(t.waitParity))
        continue;
      observePhase(t, t.waitSerial, m.phase);
      t.status = ThreadStatus::Ready;
      released = true;
    }
    if (released || ranAny)
      continue;
    // Nobody can run: the end, a barrier every thread waits at (one site,
    // or the barriers of warpgroups regions, one per region: the GPU's
    // barrier 0 counts threads, not sites), or a divergence.
    bool allDone = true, allSameBarrier = true, allRegionBarriers = true;
    for (ThreadState &t : threads) {
      allDone &= t.status == ThreadStatus::Done;
      bool waits = t.status == ThreadStatus::AtBarrier;
      allSameBarrier &= waits && t.barrierSite == threads[0].barrierSite;
      allRegionBarriers &= waits && t.barrierAnySite;
    }
    allSameBarrier |= allRegionBarriers;
    if (allDone)
      return;
    if (!allSameBarrier) {
      reportDivergence();
      blockFailed = true;
      launch.stop = true;
      return;
    }
    ++epoch; // a new barrier interval
    if (counting)
      ++counts.barriers;
    // What one thread saw of the mbarriers' phases is ordered before the
    // others' accesses after the barrier, as its other accesses are.
    std::vector<uint64_t> seen(mbarriers.size(), 0);
    for (ThreadState &t : threads)
      for (size_t i = 0; i < t.observedPhases.size(); ++i)
        seen[i] = std::max(seen[i], t.observedPhases[i]);
    for (ThreadState &t : threads) {
      t.status = ThreadStatus::Ready;
      if (!seen.empty())
        t.observedPhases = seen;
    }
  }
}

void BlockRunner::reportDivergence() {
  // Group the threads by where they are stuck.
  struct Group {
    std::string what;
    uint32_t count = 0;
    const ThreadState *first = nullptr;
  };
  std::vector<Group> groups;
  bool warpOp = false;
  // Threads waiting on an mbarrier make it a hang, whatever the others do.
  auto firstWaiting =
      std::find_if(threads.begin(), threads.end(), [](const ThreadState &t) {
        return t.status == ThreadStatus::AtMbarrier;
      });
  bool hang = firstWaiting != threads.end();
  for (ThreadState &t : threads) {
    std::string what;
    if (t.status == ThreadStatus::Done)
      what = hang ? "exited" : "exited without reaching it";
    else if (t.status == ThreadStatus::AtBarrier)
      what = "wait at " + siteText(t.barrierSite);
    else if (t.status == ThreadStatus::AtMbarrier)
      what = mbarrierWaitText(t);
    else {
      what = "wait at warp collective " + siteText(t.op.site);
      warpOp = true;
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group &g) { return g.what == what; });
    if (it == groups.end()) {
      groups.push_back({what, 0, &t});
      it = groups.end() - 1;
    }
    ++it->count;
  }
  std::ostringstream os;
  os << (hang     ? "mbarrier hang"
         : warpOp ? "divergent warp collective"
                  : "divergent barrier")
     << " in " << where(nullptr) << ": ";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i)
      os << "; ";
    os << groups[i].count << (groups[i].count == 1 ? " thread" : " threads")
       << " (first " << groups[i].first->tid.str() << ") " << groups[i].what;
  }
  if (hang)
    os << "; nothing else can run";
  Report r;
  r.kind = warpOp && !hang ? ReportKind::DivergentWarpOp
                           : ReportKind::DivergentBarrier;
  r.kernel = launch.kernel.name;
  r.block = blockId;
  r.thread = hang ? firstWaiting->tid : groups[0].first->tid;
  if (hang)
    r.site = siteText(firstWaiting->barrierSite);
  else
    r.site = groups[0].first->status == ThreadStatus::AtBarrier
                 ? siteText(groups[0].first->barrierSite)
                 : "";
  r.message = os.str();
  launch.addReport(std::move(r));
}

int64_t BlockRunner::query(ThreadState &t, int32_t what) const {
  const Dim3 &b = launch.block, &g = launch.grid;
  switch (what) {
  case abi::ThreadIdX:
    return t.tid.x;
  case abi::ThreadIdY:
    return t.tid.y;
  case abi::ThreadIdZ:
    return t.tid.z;
  case abi::BlockIdX:
    return blockId.x;
  case abi::BlockIdY:
    return blockId.y;
  case abi::BlockIdZ:
    return blockId.z;
  case abi::BlockDimX:
    return b.x;
  case abi::BlockDimY:
    return b.y;
  case abi::BlockDimZ:
    return b.z;
  case abi::GridDimX:
    return g.x;
  case abi::GridDimY:
    return g.y;
  case abi::GridDimZ:
    return g.z;
  case abi::LaneId:
    return t.linear % 32;
  case abi::WarpId:
    return t.linear / 32;
  case abi::NumWarps:
    return static_cast<int64_t>((b.count() + 31) / 32);
  case abi::WarpSize:
    return 32;
  default:
    return 0;
  }
}

bool BlockRunner::inBounds(ThreadState &t, int64_t addr, int64_t bytes,
                           int64_t rootBase, int64_t rootBytes, int32_t flags,
                           const char *site) {
  int space = (flags >> abi::SpaceShift) & 15;
  bool writes = flags & abi::Write;
  if (rootBytes >= 0) {
    int64_t offset = addr - rootBase;
    if (offset < 0 || offset + bytes > rootBytes) {
      std::ostringstream os;
      os << "out-of-bounds " << (writes ? "write" : "read") << " of " << bytes
         << " bytes at byte offset " << offset << " of a " << rootBytes
         << "-byte " << spaceName(space) << " allocation in " << where(&t)
         << ": " << siteText(site);
      Report r;
      r.kind = ReportKind::OutOfBounds;
      r.kernel = launch.kernel.name;
      r.block = blockId;
      r.thread = t.tid;
      r.site = siteText(site);
      r.space = space;
      r.offset = offset;
      r.bytes = bytes;
      r.allocBytes = rootBytes;
      r.message = os.str();
      launch.addReport(std::move(r));
      launch.stop = true;
      return false;
    }
  }
  return true;
}

bool BlockRunner::access(ThreadState &t, int64_t addr, int64_t bytes,
                         int64_t rootBase, int64_t rootBytes, int32_t flags,
                         const char *site, int64_t value) {
  if (launch.stop.load(std::memory_order_relaxed))
    return false; // another block failed or the watchdog fired
  if (!inBounds(t, addr, bytes, rootBase, rootBytes, flags, site))
    return false;
  bool writes = flags & abi::Write;
  int64_t offset = shadowOffset(addr, bytes);
  if (offset < 0 || (flags & (abi::Atomic | abi::Deferred)))
    return true;
  for (int64_t i = 0; i < bytes; ++i) {
    Shadow &s = shadow[offset + i];
    if (s.asyncPending) {
      reportInFlight(t, s, writes, offset + i, site);
      break;
    }
    if (s.bulkSerial) {
      // A bulk copy's bytes: ordered by the mbarrier phase it completes
      // on, not by barriers; readers in this interval still order a write.
      if (!observedBulk(t, s)) {
        reportEarlyBulkAccess(t, s, writes, offset + i, site);
        break;
      }
      if (writes && s.readEpoch == epoch &&
          (s.reader != t.linear || s.twoReaders)) {
        uint32_t other = s.reader != t.linear ? s.reader : s.reader2;
        reportRace(t, other, s.readSite, /*otherWrote=*/false, writes,
                   offset + i, site);
        break;
      }
      continue;
    }
    if ((flags & abi::Read) && s.writeEpoch < blockEpoch &&
        launch.options.detectUninitialized) {
      reportUninitialized(t, offset + i, site);
      break;
    }
    if (s.writeEpoch == epoch && s.writer != t.linear) {
      // Storing the bytes another thread stored (all lanes writing one
      // flag) is benign on a GPU.
      bool sameValue =
          writes && (flags & abi::HasValue) && bytes <= 8 &&
          !(flags & abi::Read) &&
          std::memcmp(reinterpret_cast<const void *>(addr), &value, bytes) == 0;
      if (sameValue)
        continue;
      reportRace(t, s.writer, s.writeSite, /*otherWrote=*/true, writes,
                 offset + i, site);
      break;
    }
    if (writes && s.readEpoch == epoch &&
        (s.reader != t.linear || s.twoReaders)) {
      uint32_t other = s.reader != t.linear ? s.reader : s.reader2;
      reportRace(t, other, s.readSite, /*otherWrote=*/false, writes, offset + i,
                 site);
      break;
    }
  }
  for (int64_t i = 0; i < bytes; ++i) {
    Shadow &s = shadow[offset + i];
    if (writes) {
      s.writeEpoch = epoch;
      s.writer = t.linear;
      s.writeSite = site;
      s.writerProxyFences = t.proxyFences;
      s.bulkSerial = 0; // an ordinary write: the mbarrier no longer orders it
    }
    if (flags & abi::Read) {
      if (s.readEpoch != epoch) {
        s.readEpoch = epoch;
        s.reader = t.linear;
        s.twoReaders = false;
        s.readSite = site;
      } else if (s.reader != t.linear && !s.twoReaders) {
        s.reader2 = t.linear;
        s.twoReaders = true;
      }
    }
  }
  return true;
}

int64_t BlockRunner::shadowOffset(int64_t addr, int64_t bytes) const {
  auto *p = reinterpret_cast<uint8_t *>(addr);
  if (!launch.options.detectRaces || bytes <= 0 || p < sharedBase ||
      p + bytes > sharedBase + sharedBytes)
    return -1;
  return p - sharedBase;
}

void BlockRunner::copyIssued(ThreadState &t, const PendingCopy &copy) {
  int64_t offset = shadowOffset(copy.dst, copy.bytes);
  if (offset < 0)
    return;
  for (int64_t i = 0; i < copy.bytes; ++i) {
    Shadow &s = shadow[offset + i];
    ++s.asyncPending;
    s.asyncIssuer = t.linear;
    s.asyncSite = copy.site;
  }
}

void BlockRunner::reportUninitialized(ThreadState &t, int64_t offset,
                                      const char *site) {
  {
    std::lock_guard<std::mutex> lock(launch.mutex);
    if (!launch.racesSeen.insert({nullptr, site}).second)
      return; // one report per op
  }
  std::ostringstream os;
  os << "read of uninitialized workgroup memory at byte offset " << offset
     << " in " << where(&t) << ": " << siteText(site)
     << " (no thread of the block wrote it)";
  Report r;
  r.kind = ReportKind::UninitializedRead;
  r.kernel = launch.kernel.name;
  r.block = blockId;
  r.thread = t.tid;
  r.site = siteText(site);
  r.space = abi::Workgroup;
  r.offset = offset;
  r.message = os.str();
  launch.addReport(std::move(r));
}

bool BlockRunner::firstRaceOf(const char *otherSite, const char *site) {
  std::lock_guard<std::mutex> lock(launch.mutex);
  return launch.racesSeen.insert({otherSite, site}).second;
}

void BlockRunner::addRace(ThreadState &t, Dim3 other, const char *otherSite,
                          int64_t offset, const char *site,
                          std::string message) {
  Report r;
  r.kind = ReportKind::Race;
  r.kernel = launch.kernel.name;
  r.block = blockId;
  r.thread = t.tid;
  r.otherThread = other;
  r.site = siteText(site);
  r.otherSite = siteText(otherSite);
  r.space = abi::Workgroup;
  r.offset = offset;
  r.message = std::move(message);
  launch.addReport(std::move(r));
}

void BlockRunner::reportInFlight(ThreadState &t, const Shadow &s,
                                 bool thisWrites, int64_t offset,
                                 const char *site) {
  if (!firstRaceOf(s.asyncSite, site))
    return;
  Dim3 issuer = threadIndex(s.asyncIssuer);
  std::ostringstream os;
  os << "race on workgroup memory at byte offset " << offset << " in "
     << where(nullptr) << ": " << (thisWrites ? "write" : "read")
     << " by thread " << t.tid.str() << " (" << siteText(site)
     << ") while the cp.async of thread " << issuer.str() << " ("
     << siteText(s.asyncSite)
     << ") into it is in flight (no nvgpu.device_async_wait completed its "
        "group)";
  addRace(t, issuer, s.asyncSite, offset, site, os.str());
}

void BlockRunner::reportRace(ThreadState &t, uint32_t other,
                             const char *otherSite, bool otherWrote,
                             bool thisWrites, int64_t offset,
                             const char *site) {
  if (!firstRaceOf(otherSite, site))
    return; // one report per pair of ops
  Dim3 otherTid = threadIndex(other);
  std::ostringstream os;
  os << "race on workgroup memory at byte offset " << offset << " in "
     << where(nullptr) << ": " << (otherWrote ? "write" : "read")
     << " by thread " << otherTid.str() << " (" << siteText(otherSite)
     << ") and " << (thisWrites ? "write" : "read") << " by thread "
     << t.tid.str() << " (" << siteText(site)
     << ") with no barrier between them";
  addRace(t, otherTid, otherSite, offset, site, os.str());
}

bool BlockRunner::aligned(ThreadState &t, int64_t addr, int64_t alignment,
                          const char *what, const char *site) {
  if (alignment <= 1 || addr % alignment == 0)
    return true;
  std::ostringstream os;
  os << "misaligned " << what << " address in " << where(&t) << ": " << std::hex
     << "0x" << addr << std::dec << " is not a multiple of " << alignment
     << " bytes: " << siteText(site);
  report(ReportKind::Misaligned, &t, os.str(), site);
  launch.stop = true;
  return false;
}

void BlockRunner::barrier(ThreadState &t, const char *site, bool anySite) {
  t.status = ThreadStatus::AtBarrier;
  t.barrierSite = site;
  t.barrierAnySite = anySite;
  yield(t);
}

void BlockRunner::warpOp(ThreadState &t) {
  t.status = ThreadStatus::AtWarpOp;
  yield(t);
}

void BlockRunner::runWarpOp(unsigned w) {
  size_t begin = w * 32, end = std::min<size_t>(begin + 32, threads.size());
  auto waiting = [&](size_t i) {
    return threads[i].status == ThreadStatus::AtWarpOp;
  };
  size_t firstLane = begin;
  while (!waiting(firstLane))
    ++firstLane;
  ThreadState &first = threads[firstLane];
  for (size_t i = begin; i < end; ++i)
    if (waiting(i) && (threads[i].op.kind != first.op.kind ||
                       threads[i].op.site != first.op.site)) {
      report(ReportKind::DivergentWarpOp, &threads[i],
             "divergent warp collective in " + where(&threads[i]) +
                 ": lane waits at " + siteText(threads[i].op.site) +
                 " while lane " + first.tid.str() + " waits at " +
                 siteText(first.op.site),
             threads[i].op.site);
      blockFailed = true;
      launch.stop = true;
      return;
    }
  size_t lanes = end - begin;
  WarpOpKind kind = first.op.kind;
  if (kind != WarpOpKind::Shuffle && lanes != 32) {
    report(ReportKind::Unsupported, &first,
           "warp collective on a partial warp in " + where(&first) + ": " +
               siteText(first.op.site) + " needs all 32 lanes",
           first.op.site);
    blockFailed = true;
    launch.stop = true;
    return;
  }
  if (kind == WarpOpKind::Shuffle) {
    for (size_t i = begin; i < end; ++i) {
      if (!waiting(i))
        continue;
      WarpOp &op = threads[i].op;
      auto [src, valid] = warp::shuffleSource(
          static_cast<unsigned>(i - begin), static_cast<uint32_t>(op.offset),
          static_cast<uint32_t>(op.width), op.mode);
      // A source past a partial warp's end, or not in the shuffle, is an
      // inactive lane.
      if (src >= lanes || !waiting(begin + src)) {
        src = static_cast<unsigned>(i - begin);
        valid = false;
      }
      op.result = threads[begin + src].op.value;
      op.valid = valid;
    }
    if (counting)
      ++counts.shuffles;
  } else if (kind == WarpOpKind::LdMatrix) {
    const uint8_t *rows[32];
    void *out[32];
    int numTiles = first.op.numTiles;
    for (int r = 0; r < 8 * numTiles; ++r) {
      WarpOp &op = threads[begin + r].op;
      // ldmatrix reads 16-byte rows from 16-byte aligned addresses.
      if (!aligned(threads[begin + r], op.rowAddr, 16, "ldmatrix row",
                   op.site) ||
          !access(threads[begin + r], op.rowAddr, 16, op.rootBase, op.rootBytes,
                  op.flags | abi::Read, op.site)) {
        blockFailed = true;
        return;
      }
      rows[r] = reinterpret_cast<const uint8_t *>(op.rowAddr);
    }
    for (size_t i = 0; i < 32; ++i)
      out[i] = threads[begin + i].op.out;
    warp::ldmatrix(rows, numTiles, first.op.transpose != 0, out);
    if (counting) {
      ++counts.ldmatrix;
      counts.sharedLoadBytes += 8 * 16 * static_cast<uint64_t>(numTiles);
      // Each 8x8 matrix is one phase: its 8 rows of 16 bytes.
      for (int m = 0; m < numTiles; ++m) {
        coalescing::LaneAccess phase[8];
        for (int r = 0; r < 8; ++r)
          phase[r] = {unsigned(r), int64_t(rows[8 * m + r] - sharedBase), 16};
        counts.sharedLoadWavefronts += coalescing::sharedWavefronts(phase, 8);
      }
    }
  } else if (kind == WarpOpKind::Mma) {
    const WarpOp &op = first.op;
    std::string why =
        warp::mmaUnsupported(op.m, op.n, op.k, op.abType, op.cType);
    if (!why.empty()) {
      report(ReportKind::Unsupported, &first,
             "unsupported mma.sync in " + where(&first) + ": " + why + ": " +
                 siteText(op.site),
             op.site);
      blockFailed = true;
      launch.stop = true;
      return;
    }
    const void *a[32], *b[32], *c[32];
    void *d[32];
    for (size_t i = 0; i < 32; ++i) {
      a[i] = threads[begin + i].op.a;
      b[i] = threads[begin + i].op.b;
      c[i] = threads[begin + i].op.c;
      d[i] = threads[begin + i].op.d;
    }
    warp::mma(op.m, op.n, op.k, op.abType, op.cType, a, b, c, d);
    if (counting) {
      bool tf32 = op.abType == abi::TF32 || op.abType == abi::F32;
      MmaShape shape = op.k == 16  ? MmaShape::M16N8K16F16
                       : op.k == 4 ? MmaShape::M16N8K4TF32
                       : tf32      ? MmaShape::M16N8K8TF32
                                   : MmaShape::M16N8K8F16;
      ++counts.mma[static_cast<int>(shape)];
    }
  }
  for (size_t i = begin; i < end; ++i)
    if (waiting(i))
      threads[i].status = ThreadStatus::Ready;
}

// --- Warpgroup MMA ---------------------------------------------------------

namespace {

// A wgmma's result is undefined until its wait: the thread's registers get
// quiet NaNs whose payload names the MMA (15 bits of its id) and the
// element (7 bits), and the wait's results turn them into the values.
constexpr uint32_t kPlaceholder = 0x7fc00000u;
constexpr uint32_t kIdMask = 0x7fff;

float placeholder(uint32_t id, int i) {
  uint32_t bits = kPlaceholder | (id & kIdMask) << 7 | (uint32_t(i) & 0x7f);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The MMA id and element a placeholder names; id 0 if `f` is none.
std::pair<uint32_t, int> placeholderOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0xffc00000u) != kPlaceholder)
    return {0, 0};
  return {(bits >> 7) & kIdMask, static_cast<int>(bits & 0x7f)};
}

} // namespace

void BlockRunner::reportAsyncOrder(ThreadState &t, const std::string &message,
                                   const char *site) {
  report(ReportKind::AsyncOrder, &t, message + " in " + where(&t), site);
  blockFailed = true;
  launch.stop = true;
}

bool BlockRunner::readWgmmaOperand(ThreadState &t, uint32_t address,
                                   const char *what, uint16_t &bits) {
  const char *site = t.op.site;
  if (address + 2 > sharedBytes) {
    std::ostringstream os;
    os << "out-of-bounds read of wgmma operand " << what
       << " at workgroup byte offset " << address << " of the block's "
       << sharedBytes << " bytes in " << where(&t) << ": " << siteText(site);
    report(ReportKind::OutOfBounds, &t, os.str(), site);
    launch.stop = true;
    return false;
  }
  int64_t addr = reinterpret_cast<int64_t>(sharedBase + address);
  if (!access(t, addr, 2, reinterpret_cast<int64_t>(sharedBase),
              static_cast<int64_t>(sharedBytes),
              abi::Read | abi::Workgroup << abi::SpaceShift, site))
    return false;
  if (int64_t offset = shadowOffset(addr, 2); offset >= 0) {
    // wgmma reads through the async proxy: the writer must have run
    // fence.proxy.async since its write.
    // (A bulk copy is the async proxy's own write: no fence needed.)
    const Shadow &s = shadow[offset];
    if (s.writeEpoch >= blockEpoch && !s.bulkSerial &&
        threads[s.writer].proxyFences == s.writerProxyFences) {
      if (firstRaceOf(s.writeSite, site)) {
        std::ostringstream os;
        os << "race on workgroup memory at byte offset " << offset << " in "
           << where(nullptr) << ": wgmma operand " << what << " read by "
           << siteText(site) << " was written by thread "
           << threads[s.writer].tid.str() << " (" << siteText(s.writeSite)
           << "), which ran no fence.proxy.async "
              "(sympow_tile.async_proxy_fence) after the write";
        addRace(t, threads[s.writer].tid, s.writeSite, offset, site, os.str());
      }
      launch.stop = true;
      return false;
    }
  }
  std::memcpy(&bits, sharedBase + address, 2);
  return true;
}

int64_t BlockRunner::wgmmaStart(ThreadState &t, int64_t addr,
                                const char *site) {
  auto *p = reinterpret_cast<uint8_t *>(addr);
  if (p < sharedBase || p >= sharedBase + sharedBytes) {
    report(ReportKind::OutOfBounds, &t,
           "wgmma matrix descriptor of an address outside the block's "
           "workgroup memory in " +
               where(&t) + ": " + siteText(site),
           site);
    launch.stop = true;
    abortThread(t);
  }
  if (!aligned(t, p - sharedBase, 16, "wgmma matrix start", site))
    abortThread(t);
  return p - sharedBase;
}

void BlockRunner::runWarpgroupOp(unsigned group) {
  size_t begin = group * warpgroup::kThreads;
  ThreadState &first = threads[begin];
  const WarpOp &op = first.op;
  auto fail = [&] {
    blockFailed = true;
    launch.stop = true;
  };
  for (size_t i = begin; i < begin + warpgroup::kThreads; ++i) {
    const WarpOp &o = threads[i].op;
    if (o.site != op.site || o.descA != op.descA || o.descB != op.descB ||
        o.n != op.n || o.abType != op.abType || o.flags != op.flags) {
      report(ReportKind::DivergentWarpOp, &threads[i],
             "divergent warpgroup MMA in " + where(&threads[i]) +
                 ": the thread waits at " + siteText(o.site) +
                 " with other operands than thread " + first.tid.str() +
                 " at " + siteText(op.site),
             o.site);
      return fail();
    }
    if (!threads[i].wgmmaFenced)
      return reportAsyncOrder(
          threads[i],
          "wgmma without a wgmma.fence (sympow_tile.warpgroup_fence) since "
          "the thread's last wait or its start: " +
              siteText(op.site),
          op.site);
  }
  warpgroup::MatrixDescriptor da = warpgroup::decode(op.descA),
                              db = warpgroup::decode(op.descB);
  bool registerA = op.flags & abi::RegisterA;
  for (const warpgroup::MatrixDescriptor *d : {&da, &db})
    if (std::string why = warpgroup::unsupported(*d);
        !why.empty() && (d == &db || !registerA)) {
      report(ReportKind::Unsupported, &first,
             "unsupported wgmma descriptor in " + where(&first) + ": " + why +
                 ": " + siteText(op.site),
             op.site);
      return fail();
    }
  int n = op.n;
  bool transA = op.flags & abi::TransposeA, transB = op.flags & abi::TransposeB;
  auto value = [&](uint16_t bits) {
    return op.abType == abi::F16 ? halfToFloat(bits) : bf16ToFloat(bits);
  };
  std::vector<float> a(warpgroup::kRows * warpgroup::kDepth),
      b(warpgroup::kDepth * n);
  uint16_t bits;
  if (registerA) {
    // Each thread's 8 elements, where the A register fragment puts them.
    for (unsigned t = 0; t < warpgroup::kThreads; ++t)
      for (int i = 0; i < 8; ++i) {
        auto [m, k] = warpgroup::registerACoord(t, i);
        std::memcpy(
            &bits,
            static_cast<const uint8_t *>(threads[begin + t].op.a) + 2 * i, 2);
        a[m * warpgroup::kDepth + k] = value(bits);
      }
  }
  for (int m = 0; m < warpgroup::kRows && !registerA; ++m)
    for (int k = 0; k < warpgroup::kDepth; ++k) {
      if (!readWgmmaOperand(first, warpgroup::elementAddress(da, transA, m, k),
                            "A", bits))
        return fail();
      a[m * warpgroup::kDepth + k] = value(bits);
    }
  for (int k = 0; k < warpgroup::kDepth; ++k)
    for (int c = 0; c < n; ++c) {
      if (!readWgmmaOperand(first, warpgroup::elementAddress(db, transB, c, k),
                            "B", bits))
        return fail();
      b[k * n + c] = value(bits);
    }
  // C: the thread's accumulators, placeholders of earlier MMAs replaced
  // (a chain on one accumulator is ordered without a wait).
  std::vector<std::vector<float>> cs(warpgroup::kThreads),
      ds(warpgroup::kThreads, std::vector<float>(n / 2));
  const float *cp[warpgroup::kThreads];
  float *dp[warpgroup::kThreads];
  for (unsigned t = 0; t < warpgroup::kThreads; ++t) {
    ThreadState &th = threads[begin + t];
    dp[t] = ds[t].data();
    cp[t] = nullptr;
    if (!(op.flags & abi::Accumulate))
      continue;
    cs[t].assign(static_cast<const float *>(th.op.c),
                 static_cast<const float *>(th.op.c) + n / 2);
    for (float &f : cs[t]) {
      auto [id, i] = placeholderOf(f);
      if (!id)
        continue;
      const WgmmaResult &r = th.wgmma[id % ThreadState::kWgmmaSlots];
      if (r.id != id || i >= static_cast<int>(r.values.size()))
        return reportAsyncOrder(
            th,
            "wgmma accumulates a placeholder of an MMA no longer tracked "
            "(more than 32 MMAs since it was issued): " +
                siteText(op.site),
            op.site);
      f = r.values[i];
    }
    cp[t] = cs[t].data();
  }
  warpgroup::multiply(n, a.data(), b.data(), cp, dp);
  for (unsigned t = 0; t < warpgroup::kThreads; ++t) {
    ThreadState &th = threads[begin + t];
    uint32_t id = ++th.wgmmaIssued & kIdMask;
    if (!id)
      id = ++th.wgmmaIssued & kIdMask;
    WgmmaResult &r = th.wgmma[id % ThreadState::kWgmmaSlots];
    r.id = id;
    r.group = -1;
    r.site = op.site;
    r.values = std::move(ds[t]);
    auto *d = static_cast<float *>(th.op.d);
    for (int i = 0; i < n / 2; ++i)
      d[i] = placeholder(id, i);
    th.status = ThreadStatus::Ready;
  }
  if (counting) {
    ++counts.wgmma;
    counts.wgmmaMultiplyAdds +=
        uint64_t(warpgroup::kRows) * warpgroup::kDepth * uint64_t(n);
    // The operands leave workgroup memory at its width, 128 bytes a pass:
    // the canonical layouts are what keeps them free of bank conflicts.
    uint64_t bytes = 2 * uint64_t(warpgroup::kDepth) *
                     ((registerA ? 0 : warpgroup::kRows) + n);
    counts.sharedLoadBytes += bytes;
    counts.sharedLoadWavefronts += (bytes + 127) / 128;
  }
}

void BlockRunner::wgmmaSync(ThreadState &t, int32_t what, int32_t pending,
                            const char *site) {
  switch (what) {
  case abi::Fence:
    t.wgmmaFenced = true;
    return;
  case abi::Commit:
    ++t.wgmmaCommitted;
    for (WgmmaResult &r : t.wgmma)
      if (r.id && r.group < 0)
        r.group = t.wgmmaCommitted;
    return;
  case abi::Wait:
    t.wgmmaCompleted =
        std::max(t.wgmmaCompleted, t.wgmmaCommitted - std::max(pending, 0));
    t.wgmmaFenced = false; // the registers are the thread's again
    return;
  case abi::ProxyFence:
    ++t.proxyFences;
    return;
  default:
    report(ReportKind::Unsupported, &t,
           "unknown wgmma synchronization " + std::to_string(what), site);
    launch.stop = true;
    abortThread(t);
  }
}

void BlockRunner::wgmmaResult(ThreadState &t, float *values, int32_t count,
                              const char *site) {
  for (int32_t j = 0; j < count; ++j) {
    auto [id, i] = placeholderOf(values[j]);
    if (!id)
      continue;
    const WgmmaResult &r = t.wgmma[id % ThreadState::kWgmmaSlots];
    if (r.id != id || i >= static_cast<int>(r.values.size())) {
      reportAsyncOrder(t,
                       "wgmma result waited for at " + siteText(site) +
                           " is of an MMA no longer tracked (more than 32 "
                           "MMAs since it was issued)",
                       site);
      abortThread(t);
    }
    if (r.group < 0 || r.group > t.wgmmaCompleted) {
      reportAsyncOrder(t,
                       "the result of " + siteText(r.site) + " is read at " +
                           siteText(site) + " before its group completed (" +
                           (r.group < 0
                                ? std::string("no wgmma.commit_group after it")
                                : "the wait leaves its group running") +
                           ")",
                       site);
      abortThread(t);
    }
    values[j] = r.values[i];
  }
}

void BlockRunner::completeCopies(ThreadState &t, int32_t keep) {
  size_t groups = t.groupEnds.size();
  if (static_cast<size_t>(std::max(keep, 0)) >= groups)
    return;
  size_t upTo = t.groupEnds[groups - keep - 1];
  for (size_t i = 0; i < upTo; ++i) {
    const PendingCopy &c = t.pending[i];
    int64_t offset = shadowOffset(c.dst, c.bytes);
    for (int64_t b = 0; offset >= 0 && b < c.bytes; ++b)
      --shadow[offset + b].asyncPending;
    // Bounds were checked at issue; the write lands now, by this thread.
    if (!access(t, c.dst, c.bytes, c.dst, -1, c.dstFlags | abi::Write, c.site))
      abortThread(t);
    auto *dst = reinterpret_cast<uint8_t *>(c.dst);
    auto *src = reinterpret_cast<const uint8_t *>(c.src);
    std::memcpy(dst, src, c.srcBytes);
    if (c.bytes > c.srcBytes)
      std::memset(dst + c.srcBytes, 0, c.bytes - c.srcBytes);
  }
  t.pending.erase(t.pending.begin(), t.pending.begin() + upTo);
  t.groupEnds.erase(t.groupEnds.begin(), t.groupEnds.end() - keep);
  for (size_t &e : t.groupEnds)
    e -= upTo;
}

// --- mbarriers and bulk copies ---------------------------------------------

namespace {

/// "phase 3 of the mbarrier at workgroup offset 1024".
std::string phaseText(uint64_t phase, const Mbarrier &m) {
  return "phase " + std::to_string(phase) +
         " of the mbarrier at workgroup offset " + std::to_string(m.offset);
}

std::string txText(int64_t tx) {
  if (tx > 0)
    return std::to_string(tx) + " transaction bytes announced and not copied";
  if (tx < 0)
    return "copies brought " + std::to_string(-tx) +
           " bytes more than expect_tx announced";
  return "no transaction bytes pending";
}

} // namespace

void BlockRunner::completePhase(Mbarrier &m) {
  if (m.pending != 0 || m.tx != 0)
    return;
  ++m.phase;
  m.pending = m.count;
}

void BlockRunner::observePhase(ThreadState &t, uint32_t serial,
                               uint64_t phase) {
  if (t.observedPhases.size() < serial)
    t.observedPhases.resize(serial, 0);
  t.observedPhases[serial - 1] = std::max(t.observedPhases[serial - 1], phase);
}

bool BlockRunner::observedBulk(const ThreadState &t, const Shadow &s) const {
  return s.bulkSerial <= t.observedPhases.size() &&
         t.observedPhases[s.bulkSerial - 1] > s.bulkPhase;
}

void BlockRunner::reportEarlyBulkAccess(ThreadState &t, const Shadow &s,
                                        bool thisWrites, int64_t offset,
                                        const char *site) {
  if (!firstRaceOf(s.bulkSite, site))
    return;
  const Mbarrier &m = mbarriers[s.bulkSerial - 1];
  Dim3 issuer = threadIndex(s.bulkIssuer);
  std::ostringstream os;
  os << "race on workgroup memory at byte offset " << offset << " in "
     << where(nullptr) << ": " << (thisWrites ? "write" : "read")
     << " by thread " << t.tid.str() << " (" << siteText(site)
     << ") of bytes the bulk copy of thread " << issuer.str() << " ("
     << siteText(s.bulkSite) << ") writes, before this thread waited for "
     << phaseText(s.bulkPhase, m) << " (an mbarrier_wait with parity "
     << s.bulkPhase % 2 << " once the phase completed)";
  addRace(t, issuer, s.bulkSite, offset, site, os.str());
}

std::string BlockRunner::mbarrierWaitText(const ThreadState &t) const {
  const Mbarrier &m = mbarriers[t.waitSerial - 1];
  std::ostringstream os;
  os << "wait at " << siteText(t.barrierSite) << " with parity " << t.waitParity
     << " for " << phaseText(m.phase, m) << " (" << m.phase
     << (m.phase == 1 ? " phase" : " phases") << " completed; " << m.pending
     << " of " << m.count << " arrivals pending, " << txText(m.tx) << ")";
  // Parity names one of two phases: a waiter two behind waits for the next.
  uint64_t seen = t.waitSerial <= t.observedPhases.size()
                      ? t.observedPhases[t.waitSerial - 1]
                      : 0;
  if (seen + 1 < m.phase)
    os << ", having seen only " << seen
       << " complete (a waiter more than one phase behind waits for a later "
          "phase than it means)";
  return os.str();
}

int64_t BlockRunner::mbarrierOffset(ThreadState &t, int64_t addr, int64_t root,
                                    int64_t rootBytes, int32_t flags,
                                    const char *site) {
  if (!inBounds(t, addr, 8, root, rootBytes, flags, site))
    abortThread(t);
  auto *p = reinterpret_cast<uint8_t *>(addr);
  if (p < sharedBase || p + 8 > sharedBase + sharedBytes) {
    report(ReportKind::OutOfBounds, &t,
           "mbarrier outside the block's workgroup memory in " + where(&t) +
               ": " + siteText(site),
           site);
    launch.stop = true;
    abortThread(t);
  }
  return p - sharedBase;
}

uint32_t BlockRunner::usedMbarrier(ThreadState &t, int64_t addr, int64_t root,
                                   int64_t rootBytes, int32_t flags,
                                   const char *site) {
  int64_t offset =
      mbarrierOffset(t, addr, root, rootBytes, flags | abi::Read, site);
  auto it = mbarrierAt.find(offset);
  if (it == mbarrierAt.end()) {
    reportAsyncOrder(t,
                     "the mbarrier at workgroup offset " +
                         std::to_string(offset) +
                         " is used before mbarrier_init: " + siteText(site) +
                         " (no thread of the block initialized it)",
                     site);
    abortThread(t);
  }
  // A read of the word: uses race with the init of another thread when no
  // barrier is between them, not with each other.
  if (!access(t, addr, 8, root, rootBytes, flags | abi::Read, site))
    abortThread(t);
  return it->second;
}

void BlockRunner::mbarrier(ThreadState &t, int32_t what, int64_t addr,
                           int64_t root, int64_t rootBytes, int32_t flags,
                           int64_t value, const char *site) {
  // One instruction of the thread (the loop of a wait that blocks too).
  if (counting)
    ++counts.intAlu;
  if (what == abi::MbarrierInit) {
    int64_t offset =
        mbarrierOffset(t, addr, root, rootBytes, flags | abi::Write, site);
    if (!aligned(t, addr, 8, "mbarrier", site) ||
        !access(t, addr, 8, root, rootBytes, flags | abi::Write, site))
      abortThread(t);
    Mbarrier m;
    m.offset = offset;
    m.count = m.pending = value;
    m.initSite = site;
    mbarriers.push_back(m);
    mbarrierAt[m.offset] = static_cast<uint32_t>(mbarriers.size());
    return;
  }
  uint32_t serial = usedMbarrier(t, addr, root, rootBytes, flags, site);
  Mbarrier &m = mbarriers[serial - 1];
  if (what == abi::MbarrierArrive) {
    if (m.pending == 0) {
      reportAsyncOrder(t,
                       "more arrivals on " + phaseText(m.phase, m) +
                           " than the " + std::to_string(m.count) +
                           " it expects (" + siteText(m.initSite) + "; " +
                           txText(m.tx) + "): " + siteText(site),
                       site);
      abortThread(t);
    }
    m.tx += value;
    --m.pending;
    completePhase(m);
    return;
  }
  if (what != abi::MbarrierWait) {
    report(ReportKind::Unsupported, &t,
           "unknown mbarrier operation " + std::to_string(what), site);
    launch.stop = true;
    abortThread(t);
  }
  uint64_t parity = static_cast<uint64_t>(value) & 1;
  if ((m.phase & 1) != parity) {
    observePhase(t, serial, m.phase);
    return;
  }
  // Blocked until the scheduler sees the phase complete (runBlock).
  t.status = ThreadStatus::AtMbarrier;
  t.waitSerial = serial;
  t.waitParity = static_cast<int64_t>(parity);
  t.barrierSite = site;
  yield(t);
}

void BlockRunner::bulkCopy(ThreadState &t, int64_t dst, int64_t dstRoot,
                           int64_t dstRootBytes, int32_t dstFlags, int64_t src,
                           int64_t srcRoot, int64_t srcRootBytes,
                           int32_t srcFlags, int64_t bytes, int64_t bar,
                           int64_t barRoot, int64_t barRootBytes,
                           int32_t barFlags, const char *site) {
  if (bytes <= 0 || bytes % 16) {
    report(ReportKind::Misaligned, &t,
           "bulk copy of " + std::to_string(bytes) + " bytes in " + where(&t) +
               ": the size must be a positive multiple of 16 bytes: " +
               siteText(site),
           site);
    launch.stop = true;
    abortThread(t);
  }
  if (!aligned(t, dst, 16, "bulk copy destination", site) ||
      !aligned(t, src, 16, "bulk copy source", site) ||
      !access(t, src, bytes, srcRoot, srcRootBytes, srcFlags | abi::Read,
              site) ||
      !inBounds(t, dst, bytes, dstRoot, dstRootBytes, dstFlags | abi::Write,
                site))
    abortThread(t);
  auto *d = reinterpret_cast<uint8_t *>(dst);
  if (d < sharedBase || d + bytes > sharedBase + sharedBytes) {
    report(ReportKind::OutOfBounds, &t,
           "bulk copy destination outside the block's workgroup memory in " +
               where(&t) + ": " + siteText(site),
           site);
    launch.stop = true;
    abortThread(t);
  }
  uint32_t serial = usedMbarrier(t, bar, barRoot, barRootBytes, barFlags, site);
  // The issuing thread writes the destination: whoever still reads the old
  // contents in this barrier interval races with it. Earlier copies' tags
  // are replaced, not checked.
  int64_t offset = shadowOffset(dst, bytes);
  for (int64_t i = 0; offset >= 0 && i < bytes; ++i)
    shadow[offset + i].bulkSerial = 0;
  if (!access(t, dst, bytes, dstRoot, dstRootBytes, dstFlags | abi::Write,
              site))
    abortThread(t);
  // The bytes land at once; who may touch them is the phase's business.
  std::memcpy(d, reinterpret_cast<const void *>(src), bytes);
  Mbarrier &m = mbarriers[serial - 1];
  for (int64_t i = 0; offset >= 0 && i < bytes; ++i) {
    Shadow &s = shadow[offset + i];
    s.bulkSerial = serial;
    s.bulkPhase = m.phase;
    s.bulkSite = site;
    s.bulkIssuer = t.linear;
  }
  m.tx -= bytes;
  completePhase(m);
  if (counting) {
    // One warp instruction (KernelCounts.h); the copy engine moves whole
    // sectors and 128-byte rows of workgroup memory, whatever the banks.
    auto n = static_cast<uint64_t>(bytes);
    ++counts.bulkCopies;
    counts.globalLoadBytes += n;
    counts.sharedStoreBytes += n;
    counts.globalLoadSectors += (src + bytes - 1) / 32 - src / 32 + 1;
    counts.sharedStoreWavefronts += (n + 127) / 128;
    markDistinct(static_cast<uint64_t>(src), n, 0);
  }
}

// --- Counters -------------------------------------------------------------

DistinctBytes::Page *DistinctBytes::page(uint64_t number) {
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Page> &p = pages[number];
  if (!p)
    p = std::make_unique<Page>(); // value-initialized: all bits 0
  return p.get();
}

uint64_t DistinctBytes::count(int which) {
  std::lock_guard<std::mutex> lock(mutex);
  uint64_t n = 0;
  for (auto &[number, page] : pages)
    for (const std::atomic<uint64_t> &w : page->bits[which])
      n += __builtin_popcountll(w.load(std::memory_order_relaxed));
  return n;
}

void BlockRunner::markDistinct(uint64_t addr, uint64_t bytes, int which) {
  constexpr uint64_t pageBytes = DistinctBytes::kPageBytes;
  while (bytes) {
    uint64_t number = addr >> DistinctBytes::kPageShift;
    uint64_t first = addr & (pageBytes - 1);
    uint64_t n = std::min(bytes, pageBytes - first);
    PageCache &cached = pageCache[number & 15];
    if (cached.number != number) {
      cached.page = launch.distinct.page(number);
      cached.number = number;
    }
    std::atomic<uint64_t> *words = cached.page->bits[which];
    uint64_t last = first + n; // [first, last) in the page
    for (uint64_t w = first / 64; w * 64 < last; ++w) {
      uint64_t lo = std::max(first, w * 64) - w * 64;
      uint64_t hi = std::min(last, w * 64 + 64) - w * 64;
      uint64_t mask =
          hi - lo == 64 ? ~uint64_t(0) : ((uint64_t(1) << (hi - lo)) - 1) << lo;
      // Most accesses touch bytes already counted: read before the RMW.
      if ((words[w].load(std::memory_order_relaxed) & mask) != mask)
        words[w].fetch_or(mask, std::memory_order_relaxed);
    }
    addr += n;
    bytes -= n;
  }
}

void BlockRunner::countAccess(ThreadState &t, int64_t addr, int64_t bytes,
                              int32_t flags, const char *site) {
  int space = (flags >> abi::SpaceShift) & 15;
  auto *p = reinterpret_cast<uint8_t *>(addr);
  if (space == abi::Unknown)
    space = p >= sharedBase && p < sharedBase + sharedBytes ? abi::Workgroup
                                                            : abi::Global;
  bool writes = flags & abi::Write; // atomics count as stores
  auto n = static_cast<uint64_t>(bytes);
  if (space == abi::Global) {
    if (writes) {
      ++counts.globalStores;
      counts.globalStoreBytes += n;
    } else {
      ++counts.globalLoads;
      counts.globalLoadBytes += n;
    }
    if (bytes > 0)
      markDistinct(static_cast<uint64_t>(addr), n, writes ? 1 : 0);
    recordAccess(
        t, {site, addr, int32_t(bytes),
            writes ? AccessRecord::GlobalStore : AccessRecord::GlobalLoad});
  } else if (space == abi::Workgroup) {
    if (writes) {
      ++counts.sharedStores;
      counts.sharedStoreBytes += n;
    } else {
      ++counts.sharedLoads;
      counts.sharedLoadBytes += n;
    }
    recordAccess(
        t, {site, int64_t(p - sharedBase), int32_t(bytes),
            writes ? AccessRecord::SharedStore : AccessRecord::SharedLoad});
  }
}

void BlockRunner::countAsyncCopy(ThreadState &t, const PendingCopy &copy) {
  // One instruction: a global load whose bytes land in workgroup memory.
  ++counts.globalLoads;
  counts.globalLoadBytes += static_cast<uint64_t>(copy.srcBytes);
  counts.sharedStoreBytes += static_cast<uint64_t>(copy.bytes);
  if (copy.srcBytes > 0)
    markDistinct(static_cast<uint64_t>(copy.src),
                 static_cast<uint64_t>(copy.srcBytes), 0);
  recordAccess(t, {copy.site, copy.src, int32_t(copy.srcBytes),
                   AccessRecord::GlobalLoad});
  auto *dst = reinterpret_cast<uint8_t *>(copy.dst);
  recordAccess(t, {copy.site, int64_t(dst - sharedBase), int32_t(copy.bytes),
                   AccessRecord::SharedStore});
}

void BlockRunner::recordAccess(ThreadState &t, AccessRecord record) {
  // Enough to group the accesses of long loops without barriers a few
  // thousand at a time; 24 KiB a thread.
  constexpr size_t kMostRecorded = 1024;
  // A thread moves at most 16 bytes per instruction: the GPU compiler
  // splits a wider vector into 16-byte accesses, one warp instruction each.
  constexpr int32_t kWidest = 16;
  while (record.bytes > kWidest) {
    t.accesses.push_back({record.site, record.addr, kWidest, record.kind});
    record.addr += kWidest;
    record.bytes -= kWidest;
  }
  t.accesses.push_back(record);
  if (t.accesses.size() >= kMostRecorded) {
    t.status = ThreadStatus::Ready;
    yield(t);
  }
}

void BlockRunner::countWarpAccesses() {
  std::vector<coalescing::LaneAccess> group;
  auto countGroup = [&](AccessRecord::Kind kind) {
    if (group.empty())
      return;
    uint64_t *counter[] = {
        // in Kind's order
        &counts.globalLoadSectors, &counts.globalStoreSectors,
        &counts.sharedLoadWavefronts, &counts.sharedStoreWavefronts};
    bool global =
        kind == AccessRecord::GlobalLoad || kind == AccessRecord::GlobalStore;
    *counter[kind] +=
        global ? coalescing::globalSectors(group.data(), group.size())
               : coalescing::sharedWavefronts(group.data(), group.size());
    group.clear();
  };
  for (size_t begin = 0; begin < threads.size(); begin += 32) {
    size_t end = std::min(begin + 32, threads.size());
    // Usually every lane that accessed memory did the same accesses in the
    // same order: the k-th records of the lanes form one warp access.
    size_t length = 0;
    bool sameOrder = true;
    for (size_t i = begin; i < end; ++i) {
      const std::vector<AccessRecord> &log = threads[i].accesses;
      if (log.empty())
        continue;
      if (length && log.size() != length)
        sameOrder = false;
      length = std::max(length, log.size());
    }
    for (size_t k = 0; sameOrder && k < length; ++k) {
      const AccessRecord *first = nullptr;
      for (size_t i = begin; i < end && sameOrder; ++i) {
        const std::vector<AccessRecord> &log = threads[i].accesses;
        if (log.empty())
          continue;
        if (!first)
          first = &log[k];
        sameOrder = log[k].site == first->site && log[k].kind == first->kind;
      }
    }
    if (sameOrder) {
      for (size_t k = 0; k < length; ++k) {
        AccessRecord::Kind kind = AccessRecord::GlobalLoad;
        for (size_t i = begin; i < end; ++i) {
          const std::vector<AccessRecord> &log = threads[i].accesses;
          if (log.empty())
            continue;
          kind = log[k].kind;
          group.push_back({unsigned(i - begin), log[k].addr, log[k].bytes});
        }
        countGroup(kind);
      }
    } else {
      // Divergent lanes: the n-th access of a site in each lane.
      struct Key {
        const char *site;
        AccessRecord::Kind kind;
        size_t occurrence;
        bool operator==(const Key &o) const {
          return site == o.site && kind == o.kind && occurrence == o.occurrence;
        }
      };
      struct KeyHash {
        size_t operator()(const Key &k) const {
          return std::hash<const void *>()(k.site) * 31 + k.occurrence * 4 +
                 k.kind;
        }
      };
      std::unordered_map<Key, std::vector<coalescing::LaneAccess>, KeyHash>
          groups;
      std::vector<Key> order;
      for (size_t i = begin; i < end; ++i) {
        std::unordered_map<const char *, size_t> seen;
        for (const AccessRecord &r : threads[i].accesses) {
          Key key{r.site, r.kind, seen[r.site]++};
          auto [it, inserted] = groups.try_emplace(key);
          if (inserted)
            order.push_back(key);
          it->second.push_back({unsigned(i - begin), r.addr, r.bytes});
        }
      }
      for (const Key &key : order) {
        group = std::move(groups[key]);
        countGroup(key.kind);
      }
    }
    for (size_t i = begin; i < end; ++i)
      threads[i].accesses.clear();
  }
}
