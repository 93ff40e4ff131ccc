//===- EntryPoints.cpp - The functions lowered kernels call ---------------===//
//
// Each one finds the calling emulated thread through `currentThread` and
// forwards to its block's runner. Argument meanings are in ABI.h.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "SoftFloat.h"

#include "sympow/Emulator/ABI.h"

using namespace sympow::emu;

extern "C" {

int64_t __sympow_emu_query(int32_t what) {
  ThreadState &t = *currentThread;
  return t.runner->query(t, what);
}

void __sympow_emu_access(int64_t addr, int64_t bytes, int64_t rootBase,
                         int64_t rootBytes, int32_t flags, int64_t value,
                         const char *site) {
  ThreadState &t = *currentThread;
  if (!t.runner->access(t, addr, bytes, rootBase, rootBytes, flags, site,
                        value))
    t.runner->abortThread(t);
  if (t.runner->counting)
    t.runner->countAccess(t, addr, bytes, flags, site);
}

void __sympow_emu_barrier(const char *site, int32_t anySite) {
  ThreadState &t = *currentThread;
  t.runner->barrier(t, site, anySite != 0);
}

int64_t __sympow_emu_shuffle(int64_t value, int32_t offset, int32_t width,
                             int32_t mode, const char *site) {
  ThreadState &t = *currentThread;
  t.op = WarpOp();
  t.op.kind = WarpOpKind::Shuffle;
  t.op.site = site;
  t.op.value = value;
  t.op.offset = offset;
  t.op.width = width;
  t.op.mode = mode;
  t.runner->warpOp(t);
  t.lastShuffleValid = t.op.valid;
  return t.op.result;
}

int32_t __sympow_emu_shuffle_valid() {
  return currentThread->lastShuffleValid ? 1 : 0;
}

void __sympow_emu_ldmatrix(int64_t rowAddr, int64_t rootBase, int64_t rootBytes,
                           int32_t flags, int32_t numTiles, int32_t transpose,
                           int32_t elementBytes, int64_t out,
                           const char *site) {
  ThreadState &t = *currentThread;
  t.op = WarpOp();
  t.op.kind = WarpOpKind::LdMatrix;
  t.op.site = site;
  t.op.rowAddr = rowAddr;
  t.op.rootBase = rootBase;
  t.op.rootBytes = rootBytes;
  t.op.flags = flags;
  t.op.numTiles = numTiles;
  t.op.transpose = transpose;
  t.op.elementBytes = elementBytes;
  t.op.out = reinterpret_cast<void *>(out);
  t.runner->warpOp(t);
}

void __sympow_emu_mma(int32_t m, int32_t n, int32_t k, int32_t abType,
                      int32_t cType, int64_t a, int64_t b, int64_t c, int64_t d,
                      const char *site) {
  ThreadState &t = *currentThread;
  t.op = WarpOp();
  t.op.kind = WarpOpKind::Mma;
  t.op.site = site;
  t.op.m = m;
  t.op.n = n;
  t.op.k = k;
  t.op.abType = abType;
  t.op.cType = cType;
  t.op.a = reinterpret_cast<const void *>(a);
  t.op.b = reinterpret_cast<const void *>(b);
  t.op.c = reinterpret_cast<const void *>(c);
  t.op.d = reinterpret_cast<void *>(d);
  t.runner->warpOp(t);
}

int32_t __sympow_emu_async_copy(int64_t dst, int64_t dstRoot,
                                int64_t dstRootBytes, int32_t dstFlags,
                                int64_t src, int64_t srcRoot,
                                int64_t srcRootBytes, int32_t srcFlags,
                                int64_t bytes, int64_t srcBytes,
                                const char *site) {
  ThreadState &t = *currentThread;
  if (srcBytes < 0 || srcBytes > bytes)
    srcBytes = bytes;
  // Bounds now (the issuing op is the one to blame); the write and its race
  // check when the group completes. cp.async moves 4, 8 or 16 bytes between
  // addresses aligned to that size.
  if (!t.runner->aligned(t, dst, bytes, "cp.async destination", site) ||
      !t.runner->aligned(t, src, bytes, "cp.async source", site) ||
      !t.runner->access(t, src, srcBytes, srcRoot, srcRootBytes,
                        srcFlags | sympow::emu::abi::Read, site) ||
      !t.runner->access(t, dst, bytes, dstRoot, dstRootBytes,
                        dstFlags | sympow::emu::abi::Write |
                            sympow::emu::abi::Deferred,
                        site))
    t.runner->abortThread(t);
  t.pending.push_back({dst, src, bytes, srcBytes, dstFlags, srcFlags, site});
  t.runner->copyIssued(t, t.pending.back());
  if (t.runner->counting)
    t.runner->countAsyncCopy(t, t.pending.back());
  return static_cast<int32_t>(t.pending.size());
}

int32_t __sympow_emu_async_commit() {
  ThreadState &t = *currentThread;
  t.groupEnds.push_back(t.pending.size());
  return ++t.groupsCommitted;
}

void __sympow_emu_async_wait(int32_t pendingGroups) {
  ThreadState &t = *currentThread;
  t.runner->completeCopies(t, pendingGroups);
}

int64_t __sympow_emu_wgmma_start(int64_t addr, const char *site) {
  ThreadState &t = *currentThread;
  return t.runner->wgmmaStart(t, addr, site);
}

void __sympow_emu_wgmma(int64_t descA, int64_t descB, int32_t n,
                        int32_t inputType, int32_t flags, int64_t a, int64_t c,
                        int64_t d, const char *site) {
  ThreadState &t = *currentThread;
  t.op = WarpOp();
  t.op.kind = WarpOpKind::Wgmma;
  t.op.site = site;
  t.op.descA = static_cast<uint64_t>(descA);
  t.op.descB = static_cast<uint64_t>(descB);
  t.op.n = n;
  t.op.abType = inputType;
  t.op.flags = flags;
  t.op.a = reinterpret_cast<const void *>(a);
  t.op.c = reinterpret_cast<const void *>(c);
  t.op.d = reinterpret_cast<void *>(d);
  t.runner->warpOp(t);
}

void __sympow_emu_wgmma_sync(int32_t what, int32_t pending, const char *site) {
  ThreadState &t = *currentThread;
  t.runner->wgmmaSync(t, what, pending, site);
}

void __sympow_emu_wgmma_result(int64_t values, int32_t count,
                               const char *site) {
  ThreadState &t = *currentThread;
  t.runner->wgmmaResult(t, reinterpret_cast<float *>(values), count, site);
}

void __sympow_emu_count(int64_t fp32Fma, int64_t fp32Alu, int64_t fp64,
                        int64_t sfu, int64_t intAlu, const char *site) {
  BlockRunner &r = *currentThread->runner;
  if (!r.counting)
    return;
  sympow::OpCounts &c = r.counts;
  c.fp32Fma += static_cast<uint64_t>(fp32Fma);
  c.fp32Alu += static_cast<uint64_t>(fp32Alu);
  c.fp64 += static_cast<uint64_t>(fp64);
  c.sfu += static_cast<uint64_t>(sfu);
  c.intAlu += static_cast<uint64_t>(intAlu);
  if (r.profiling)
    r.profileBlock(site, fp32Fma, fp32Alu, fp64, sfu, intAlu);
}

void __sympow_emu_mbarrier(int32_t what, int64_t addr, int64_t root,
                           int64_t rootBytes, int32_t flags, int64_t value,
                           const char *site) {
  ThreadState &t = *currentThread;
  t.runner->mbarrier(t, what, addr, root, rootBytes, flags, value, site);
}

void __sympow_emu_bulk_copy(int64_t dst, int64_t dstRoot, int64_t dstRootBytes,
                            int32_t dstFlags, int64_t src, int64_t srcRoot,
                            int64_t srcRootBytes, int32_t srcFlags,
                            int64_t bytes, int64_t bar, int64_t barRoot,
                            int64_t barRootBytes, int32_t barFlags,
                            const char *site) {
  ThreadState &t = *currentThread;
  t.runner->bulkCopy(t, dst, dstRoot, dstRootBytes, dstFlags, src, srcRoot,
                     srcRootBytes, srcFlags, bytes, bar, barRoot, barRootBytes,
                     barFlags, site);
}

} // extern "C"

std::vector<std::pair<const char *, void *>> sympow::emu::runtimeSymbols() {
  namespace abi = sympow::emu::abi;
  return {
      {abi::kQuery, reinterpret_cast<void *>(&__sympow_emu_query)},
      {abi::kAccess, reinterpret_cast<void *>(&__sympow_emu_access)},
      {abi::kBarrier, reinterpret_cast<void *>(&__sympow_emu_barrier)},
      {abi::kShuffle, reinterpret_cast<void *>(&__sympow_emu_shuffle)},
      {abi::kShuffleValid,
       reinterpret_cast<void *>(&__sympow_emu_shuffle_valid)},
      {abi::kLdMatrix, reinterpret_cast<void *>(&__sympow_emu_ldmatrix)},
      {abi::kMma, reinterpret_cast<void *>(&__sympow_emu_mma)},
      {abi::kAsyncCopy, reinterpret_cast<void *>(&__sympow_emu_async_copy)},
      {abi::kAsyncCommit, reinterpret_cast<void *>(&__sympow_emu_async_commit)},
      {abi::kAsyncWait, reinterpret_cast<void *>(&__sympow_emu_async_wait)},
      {abi::kWgmmaStart, reinterpret_cast<void *>(&__sympow_emu_wgmma_start)},
      {abi::kWgmma, reinterpret_cast<void *>(&__sympow_emu_wgmma)},
      {abi::kWgmmaSync, reinterpret_cast<void *>(&__sympow_emu_wgmma_sync)},
      {abi::kWgmmaResult, reinterpret_cast<void *>(&__sympow_emu_wgmma_result)},
      {abi::kCount, reinterpret_cast<void *>(&__sympow_emu_count)},
      {abi::kMbarrier, reinterpret_cast<void *>(&__sympow_emu_mbarrier)},
      {abi::kBulkCopy, reinterpret_cast<void *>(&__sympow_emu_bulk_copy)},
      // Compiler helpers for bf16 that older libgcc lacks.
      {"__truncsfbf2", reinterpret_cast<void *>(&truncSFtoBF)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncDFtoBF)},
  };
}
