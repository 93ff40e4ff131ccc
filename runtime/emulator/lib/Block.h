//===- Block.h - Running one thread block as fibers -------------*- C++ -*-===//
//
// The state of a launch shared by its workers, the state of one emulated
// thread, and the scheduler that runs the threads of a block: each runs
// until it reaches a barrier, a warp collective, an mbarrier wait or its
// end; a barrier opens when every thread of the block waits at it, a
// collective runs when every lane of the warp waits at it, a wait returns
// when its mbarrier phase completed. When no thread can go on, the block is
// divergent (or hangs on an mbarrier) and is reported instead of hanging.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_BLOCK_H
#define SYMPOW_EMULATOR_BLOCK_H

#include "Fiber.h"
#include "sympow/Emulator/Emulator.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sympow::emu {

class BlockRunner;

/// The bytes of global memory a launch loaded and stored, each byte once
/// however often it is accessed: two bitmaps (loads, stores) per 64 KiB page
/// of host addresses. Workers find pages under a mutex (and cache them, see
/// BlockRunner::markDistinct) and set bits with an atomic OR.
class DistinctBytes {
public:
  static constexpr unsigned kPageShift = 16;
  static constexpr uint64_t kPageBytes = uint64_t(1) << kPageShift;
  static constexpr size_t kWords = kPageBytes / 64;
  struct Page {
    std::atomic<uint64_t> bits[2][kWords]; // [0] loads, [1] stores
  };
  /// The page of addresses [number << kPageShift, +kPageBytes), created
  /// zeroed on first use.
  Page *page(uint64_t number);
  /// Bytes loaded (which 0) or stored (1) at least once.
  uint64_t count(int which);

private:
  std::mutex mutex;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages;
};

/// Whether block counts `a` (linear block index `la`) are heavier than `b`:
/// more operations(), ties to the lower block index (deterministic whatever
/// the workers' order).
inline bool heavierBlock(const OpCounts &a, uint64_t la, const OpCounts &b,
                         uint64_t lb) {
  uint64_t oa = a.operations(), ob = b.operations();
  return oa > ob || (oa == ob && la < lb);
}

/// What all workers of one launch share.
struct LaunchContext {
  const Kernel &kernel;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes;
  void **args;
  LaunchOptions options;

  std::atomic<bool> stop{false};
  std::mutex mutex; // guards the fields below
  LaunchResult result;
  std::set<std::pair<const char *, const char *>> racesSeen;
  // Counters merged from the workers (options.countOperations).
  OpCounts total, heaviest;
  // Per counted block, by its site (options.profileBlocks).
  std::unordered_map<const char *, BlockProfile> profile;
  uint64_t heaviestLinear = UINT64_MAX; // none yet
  DistinctBytes distinct;

  LaunchContext(const Kernel &kernel, Dim3 grid, Dim3 block,
                uint64_t dynamicSharedBytes, void **args,
                const LaunchOptions &options)
      : kernel(kernel), grid(grid), block(block),
        dynamicSharedBytes(dynamicSharedBytes), args(args), options(options) {}
  /// Keeps `report` (thread-safe), up to options.maxReports.
  void addReport(Report report);
};

enum class WarpOpKind { None, Shuffle, LdMatrix, Mma, Wgmma };

/// A lane's part of a warp collective, filled in before it waits.
struct WarpOp {
  WarpOpKind kind = WarpOpKind::None;
  const char *site = nullptr;
  // Shuffle.
  int64_t value = 0;
  int32_t offset = 0, width = 32, mode = 0;
  int64_t result = 0;
  bool valid = false;
  // ldmatrix: this lane's row address and the allocation it lies in.
  int64_t rowAddr = 0, rootBase = 0, rootBytes = 0;
  int32_t flags = 0, numTiles = 1, transpose = 0, elementBytes = 2;
  void *out = nullptr;
  // mma.sync.
  int32_t m = 0, n = 0, k = 0, abType = 0, cType = 0;
  const void *a = nullptr, *b = nullptr, *c = nullptr;
  void *d = nullptr;
  // wgmma (a warpgroup collective): n, abType, flags, c and d as above.
  uint64_t descA = 0, descB = 0;
};

/// The result of a wgmma as one thread holds it until a wait completes it.
struct WgmmaResult {
  uint32_t id = 0;    // 15 bits, never 0; 0: the slot is free
  int32_t group = -1; // the commit group, -1 before the commit
  const char *site = nullptr;
  std::vector<float> values;
};

/// A cp.async copy issued but not yet waited for.
struct PendingCopy {
  int64_t dst, src, bytes, srcBytes;
  int32_t dstFlags, srcFlags;
  const char *site;
};

/// The state of one mbarrier_init's barrier in the current block (PTX
/// mbarrier: a phase completes when its expected arrivals have come and
/// its transaction count is back to 0).
struct Mbarrier {
  int64_t offset = 0; // of the 8-byte word in the block's workgroup memory
  int64_t count = 0;  // arrivals each phase expects
  int64_t pending = 0;
  // Bytes announced by expect_tx minus bytes bulk copies brought: below 0
  // while copies land before their announcing arrival.
  int64_t tx = 0;
  uint64_t phase = 0; // phases completed
  const char *initSite = nullptr;
};

enum class ThreadStatus {
  Ready,
  AtBarrier,
  AtWarpOp,
  AtMbarrier, // waits for a phase of an mbarrier (BlockRunner::mbarrier)
  Done,
  Aborted
};

/// One counted access of a thread (at most 16 bytes), kept until its warp's
/// lanes are grouped into warp-wide accesses (BlockRunner::countWarpAccesses).
struct AccessRecord {
  enum Kind : uint8_t { GlobalLoad, GlobalStore, SharedLoad, SharedStore };
  const char *site;
  int64_t addr; // workgroup: offset in the block's buffer
  int32_t bytes;
  Kind kind;
};

struct ThreadState {
  Dim3 tid;
  uint32_t linear = 0;
  Fiber fiber;
  ThreadStatus status = ThreadStatus::Ready;
  const char *barrierSite = nullptr;
  // At a barrier of a warpgroups region: it opens with the other regions'.
  bool barrierAnySite = false;
  WarpOp op;
  bool lastShuffleValid = false;
  std::vector<PendingCopy> pending;
  std::vector<size_t> groupEnds; // end index in `pending` of each group
  int32_t groupsCommitted = 0;
  // Warpgroup MMA: results by id % kWgmmaSlots, groups committed and
  // completed, whether wgmma.fence ran since the last wait, and the
  // fence.proxy.async this thread has run.
  static constexpr unsigned kWgmmaSlots = 32;
  std::vector<WgmmaResult> wgmma = std::vector<WgmmaResult>(kWgmmaSlots);
  uint32_t wgmmaIssued = 0;
  int32_t wgmmaCommitted = 0, wgmmaCompleted = 0;
  bool wgmmaFenced = false;
  uint32_t proxyFences = 0;
  // mbarriers: how many phases of each (by serial - 1) this thread has seen
  // complete (a wait returned); while AtMbarrier, what it waits for (and
  // barrierSite the wait).
  std::vector<uint64_t> observedPhases;
  uint32_t waitSerial = 0;
  int64_t waitParity = 0;
  // Counted accesses since the scheduler's last pass over the block.
  std::vector<AccessRecord> accesses;
  BlockRunner *runner = nullptr;
};

/// Runs blocks, one at a time, on the OS thread that owns it.
class BlockRunner {
public:
  explicit BlockRunner(LaunchContext &launch);
  /// False if the fiber stacks could not be allocated.
  bool init();
  /// Runs block `blockId` (linear index `linear`) and adds its counts to
  /// this worker's total and heaviest block.
  void run(Dim3 blockId, uint64_t linear);

  // Counters (launch.options.countOperations): the current block's, and
  // this worker's sum and heaviest block so far. Fibers of a block run on
  // this one OS thread, so no atomics.
  bool counting = false;
  OpCounts counts;
  /// Per counted block, by its site (launch.options.profileBlocks): this
  /// worker's, merged into the launch's at its end.
  bool profiling = false;
  std::unordered_map<const char *, BlockProfile> profile;
  void profileBlock(const char *site, int64_t fp32Fma, int64_t fp32Alu,
                    int64_t fp64, int64_t sfu, int64_t intAlu);
  OpCounts total, heaviest;
  uint64_t heaviestLinear = UINT64_MAX;
  /// Counts a thread's access of `bytes` at `addr` (global or workgroup by
  /// the space in `flags`; private memory is not counted).
  void countAccess(ThreadState &t, int64_t addr, int64_t bytes, int32_t flags,
                   const char *site);
  /// Counts a cp.async at issue: its source as a global load, its
  /// destination bytes as shared stores.
  void countAsyncCopy(ThreadState &t, const PendingCopy &copy);

  // Called by the emulated threads (through the ABI entry points).
  int64_t query(ThreadState &t, int32_t what) const;
  /// Checks an access; false if it is out of bounds (reported).
  /// `value`: the bits a write stores, when flags has abi::HasValue (a
  /// write of the bytes already there by another thread is not a race).
  bool access(ThreadState &t, int64_t addr, int64_t bytes, int64_t rootBase,
              int64_t rootBytes, int32_t flags, const char *site,
              int64_t value = 0);
  /// Checks [addr, addr + bytes) against its allocation; false if it is out
  /// of bounds (reported, launch stopping).
  bool inBounds(ThreadState &t, int64_t addr, int64_t bytes, int64_t rootBase,
                int64_t rootBytes, int32_t flags, const char *site);
  void barrier(ThreadState &t, const char *site, bool anySite);
  /// Waits for the lanes of the warp; `t.op` holds this lane's part.
  void warpOp(ThreadState &t);
  /// The window address of `addr` for a wgmma descriptor (checked).
  int64_t wgmmaStart(ThreadState &t, int64_t addr, const char *site);
  /// wgmma.fence, commit, wait and fence.proxy.async (abi::WgmmaSync).
  void wgmmaSync(ThreadState &t, int32_t what, int32_t pending,
                 const char *site);
  /// Replaces the placeholders among `values` by their MMAs' results.
  void wgmmaResult(ThreadState &t, float *values, int32_t count,
                   const char *site);
  /// Completes this thread's cp.async groups older than the newest `keep`.
  void completeCopies(ThreadState &t, int32_t keep);
  /// Marks the workgroup bytes a cp.async will write as in flight.
  void copyIssued(ThreadState &t, const PendingCopy &copy);
  /// mbarrier_init, arrive and wait (abi::MbarrierOp) on the barrier word
  /// at `addr`; `value` the count, expect_tx bytes or parity.
  void mbarrier(ThreadState &t, int32_t what, int64_t addr, int64_t root,
                int64_t rootBytes, int32_t flags, int64_t value,
                const char *site);
  /// A bulk copy from global `src` to workgroup `dst` completing on the
  /// mbarrier at `bar`: checked, copied at once, its bytes tagged with the
  /// barrier's phase.
  void bulkCopy(ThreadState &t, int64_t dst, int64_t dstRoot,
                int64_t dstRootBytes, int32_t dstFlags, int64_t src,
                int64_t srcRoot, int64_t srcRootBytes, int32_t srcFlags,
                int64_t bytes, int64_t bar, int64_t barRoot,
                int64_t barRootBytes, int32_t barFlags, const char *site);
  /// False (reported, launch stopping) if `addr` is not a multiple of
  /// `alignment`, which `what` (ldmatrix, cp.async) needs.
  bool aligned(ThreadState &t, int64_t addr, int64_t alignment,
               const char *what, const char *site);
  /// Ends the thread for good: the launch is stopping.
  [[noreturn]] void abortThread(ThreadState &t);
  void kernelBody(ThreadState &t);

private:
  struct Shadow {
    uint64_t writeEpoch = 0, readEpoch = 0;
    uint32_t writer = 0, reader = 0, reader2 = 0;
    bool twoReaders = false;
    const char *writeSite = nullptr, *readSite = nullptr;
    // The writer's fence.proxy.async count when it wrote (a wgmma reads
    // the byte only after the writer fenced again).
    uint32_t writerProxyFences = 0;
    // cp.async copies issued into this byte and not yet completed.
    uint32_t asyncPending = 0, asyncIssuer = 0;
    const char *asyncSite = nullptr;
    // The bulk copy that wrote the byte (until an ordinary write): its
    // mbarrier (serial, 0: none) and the phase it completes on; a thread
    // touches the byte only after it saw that phase complete.
    uint32_t bulkSerial = 0, bulkIssuer = 0;
    uint64_t bulkPhase = 0;
    const char *bulkSite = nullptr;
  };

  void yield(ThreadState &t);
  void runBlock();
  /// Keeps an access for countWarpAccesses; a thread that has kept many
  /// yields to the scheduler so that its lanes catch up (bounded memory).
  void recordAccess(ThreadState &t, AccessRecord record);
  /// Groups each warp's recorded accesses into warp-wide ones (the k-th
  /// access of a site in every lane) and counts their sectors and
  /// wavefronts. Called when every thread has stopped: the lanes of a warp
  /// then stand at the same point of a uniform program.
  void countWarpAccesses();
  /// Sets the bits of [addr, addr + bytes) in the launch's load (which 0)
  /// or store (1) bitmap.
  void markDistinct(uint64_t addr, uint64_t bytes, int which);
  void runWarpOp(unsigned warp);
  /// Runs the wgmma every thread of warpgroup `group` waits at.
  void runWarpgroupOp(unsigned group);
  /// Reads the 2-byte operand element at `address` of the window for the
  /// wgmma of `t`, with the access checks and the async proxy's; false if
  /// it failed (reported).
  bool readWgmmaOperand(ThreadState &t, uint32_t address, const char *what,
                        uint16_t &bits);
  /// Reports a broken ordering rule of an async operation and stops.
  void reportAsyncOrder(ThreadState &t, const std::string &message,
                        const char *site);
  void reportDivergence();
  /// The offset in the block's workgroup memory of the mbarrier word at
  /// `addr`; aborts the thread (reported) outside its allocation or the
  /// block's workgroup memory.
  int64_t mbarrierOffset(ThreadState &t, int64_t addr, int64_t root,
                         int64_t rootBytes, int32_t flags, const char *site);
  /// The mbarrier `addr` names for `t`'s op at `site` (its serial), after
  /// checking it was initialized and that `t` may use it (a read of the
  /// word); aborts the thread otherwise.
  uint32_t usedMbarrier(ThreadState &t, int64_t addr, int64_t root,
                        int64_t rootBytes, int32_t flags, const char *site);
  /// Completes the current phase of `m` if it has no arrival and no
  /// transaction byte pending.
  void completePhase(Mbarrier &m);
  /// Records that `t` saw `phase` phases of mbarrier `serial` complete.
  void observePhase(ThreadState &t, uint32_t serial, uint64_t phase);
  /// What a thread waiting on an mbarrier waits for (a hang report).
  std::string mbarrierWaitText(const ThreadState &t) const;
  /// Whether `t` saw the phase complete that the bulk copy into `s` is
  /// part of.
  bool observedBulk(const ThreadState &t, const Shadow &s) const;
  void reportEarlyBulkAccess(ThreadState &t, const Shadow &s, bool thisWrites,
                             int64_t offset, const char *site);
  void reportRace(ThreadState &t, uint32_t other, const char *otherSite,
                  bool otherWrote, bool thisWrites, int64_t offset,
                  const char *site);
  void reportUninitialized(ThreadState &t, int64_t offset, const char *site);
  /// Whether no race between ops `otherSite` and `site` was reported yet
  /// (one report per pair of ops; thread-safe).
  bool firstRaceOf(const char *otherSite, const char *site);
  /// Reports a race on workgroup byte `offset` between `t` at `site` and
  /// thread `other` at `otherSite`.
  void addRace(ThreadState &t, Dim3 other, const char *otherSite,
               int64_t offset, const char *site, std::string message);
  void reportInFlight(ThreadState &t, const Shadow &s, bool thisWrites,
                      int64_t offset, const char *site);
  /// The shadow offset of [addr, addr + bytes) if it is workgroup memory
  /// with race detection on, else -1.
  int64_t shadowOffset(int64_t addr, int64_t bytes) const;
  void report(ReportKind kind, ThreadState *t, std::string message,
              const char *site = nullptr);
  Dim3 threadIndex(uint32_t linear) const;
  std::string where(const ThreadState *t) const;

  LaunchContext &launch;
  Dim3 blockId;
  std::vector<ThreadState> threads;
  FiberContext scheduler;
  bool blockFailed = false;

  // Workgroup memory of the current block: static part, then dynamic.
  std::vector<uint8_t> shared;
  uint8_t *sharedBase = nullptr;
  uint64_t staticBytes = 0, sharedBytes = 0;
  std::vector<Shadow> shadow;
  uint64_t epoch = 0;      // grows across blocks, so shadow is never cleared
  uint64_t blockEpoch = 0; // the epoch the current block started in
  // The current block's mbarriers: one per mbarrier_init (serial - 1), and
  // the serial of the latest init of each barrier word (by offset).
  std::vector<Mbarrier> mbarriers;
  std::unordered_map<int64_t, uint32_t> mbarrierAt;

  // Packed arguments plus the two workgroup descriptors.
  std::vector<void *> args;
  struct Descriptor {
    void *allocated, *aligned;
    int64_t offset, size, stride;
  } workgroup[2];

  // The last pages markDistinct used, by page number modulo 16.
  struct PageCache {
    uint64_t number = UINT64_MAX;
    DistinctBytes::Page *page = nullptr;
  } pageCache[16];
};

/// The thread running on this OS thread, if any.
extern thread_local ThreadState *currentThread;

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_BLOCK_H
