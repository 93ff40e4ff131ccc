//===- ABI.h - Calls between lowered kernels and the emulator ---*- C++ -*-===//
//
// The contract between the `sympow-gpu-to-emulator` pass and the emulator
// runtime: the names of the functions lowered kernels call, the codes they
// pass, and the extra arguments every kernel entry takes. The pass includes
// this header for the names and codes, the runtime implements the functions;
// there is no other coupling.
//
// Integer widths: `index` is int64_t on the hosts we run on; sites are
// pointers to NUL-terminated strings ("memref.store at file:line:col").
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_ABI_H
#define SYMPOW_EMULATOR_ABI_H

#include <cstdint>

namespace sympow::emu::abi {

// Function names, as the lowered code declares them.
inline constexpr const char *kQuery = "__sympow_emu_query";
inline constexpr const char *kAccess = "__sympow_emu_access";
inline constexpr const char *kBarrier = "__sympow_emu_barrier";
inline constexpr const char *kShuffle = "__sympow_emu_shuffle";
inline constexpr const char *kShuffleValid = "__sympow_emu_shuffle_valid";
inline constexpr const char *kLdMatrix = "__sympow_emu_ldmatrix";
inline constexpr const char *kMma = "__sympow_emu_mma";
inline constexpr const char *kAsyncCopy = "__sympow_emu_async_copy";
inline constexpr const char *kAsyncCommit = "__sympow_emu_async_commit";
inline constexpr const char *kAsyncWait = "__sympow_emu_async_wait";
inline constexpr const char *kWgmmaStart = "__sympow_emu_wgmma_start";
inline constexpr const char *kWgmma = "__sympow_emu_wgmma";
inline constexpr const char *kWgmmaSync = "__sympow_emu_wgmma_sync";
inline constexpr const char *kWgmmaResult = "__sympow_emu_wgmma_result";
inline constexpr const char *kCount = "__sympow_emu_count";
inline constexpr const char *kMbarrier = "__sympow_emu_mbarrier";
inline constexpr const char *kBulkCopy = "__sympow_emu_bulk_copy";

/// Lowered code calls the runtime through this table of function pointers,
/// a global of the compiled module that the runtime fills when it loads the
/// module (so a shared object needs no symbol from the loading program).
/// Entry i is the function named kRuntimeFunctions[i].
inline constexpr const char *kRuntimeTable = "__sympow_emu_runtime";
inline constexpr const char *kRuntimeFunctions[] = {
    kQuery,      kAccess,   kBarrier,   kShuffle,     kShuffleValid,
    kLdMatrix,   kMma,      kAsyncCopy, kAsyncCommit, kAsyncWait,
    kWgmmaStart, kWgmma,    kWgmmaSync, kWgmmaResult, kCount,
    kMbarrier,   kBulkCopy,
};
inline constexpr int kNumRuntimeFunctions =
    sizeof(kRuntimeFunctions) / sizeof(kRuntimeFunctions[0]);

/// The module manifest: a global NUL-terminated string, one line per kernel:
/// "<kernel> <entry symbol> <static shared bytes> <packed argument count>
/// <block x> <block y> <block z> <checked>\n". The entry is the packed
/// wrapper `void entry(void **args)`; the argument count excludes the
/// workgroup-memory arguments the runtime appends; the block is the
/// kernel's known_block_size (0 0 0: any); checked is 1 when the kernel's
/// accesses are instrumented (else the runtime tracks no workgroup bytes).
inline constexpr const char *kManifest = "__sympow_emu_manifest";

/// What `__sympow_emu_query(int32_t what) -> int64_t` returns.
enum Query : int32_t {
  ThreadIdX = 0,
  ThreadIdY,
  ThreadIdZ,
  BlockIdX,
  BlockIdY,
  BlockIdZ,
  BlockDimX,
  BlockDimY,
  BlockDimZ,
  GridDimX,
  GridDimY,
  GridDimZ,
  LaneId,
  WarpId,
  NumWarps,
  WarpSize,
};

/// Access flags of `__sympow_emu_access`: read/write/atomic bits plus the
/// memory space of the accessed allocation in bits 4..7.
enum AccessFlag : int32_t {
  Read = 1,
  Write = 2,
  Atomic = 4,
  Deferred = 8, // checked now, written later (cp.async): no race tracking
  SpaceShift = 4,
  HasValue = 256, // `value` holds the bits a write of at most 8 bytes stores
};
enum Space : int32_t { Global = 0, Workgroup = 1, Private = 2, Unknown = 3 };

/// gpu.shuffle modes, as `gpu::ShuffleMode` numbers them.
enum ShuffleMode : int32_t { Xor = 0, Up = 1, Down = 2, Idx = 3 };

/// Element types of mma.sync operands.
enum ElementType : int32_t { F16 = 1, BF16 = 2, F32 = 3, TF32 = 4 };

/// Flags of `__sympow_emu_wgmma`.
enum WgmmaFlag : int32_t {
  TransposeA = 1,
  TransposeB = 2,
  Accumulate = 4,
  RegisterA = 8, // A from the threads' registers (`a`), not `descA`
};

/// What `__sympow_emu_wgmma_sync` does: wgmma.fence, wgmma.commit_group,
/// wgmma.wait_group `pending`, fence.proxy.async.shared::cta.
enum WgmmaSync : int32_t { Fence = 0, Commit = 1, Wait = 2, ProxyFence = 3 };

/// What `__sympow_emu_mbarrier` does, and what its `value` is:
/// mbarrier.init (the expected arrival count), mbarrier.arrive[.expect_tx]
/// (the transaction bytes it announces, 0 without expect_tx),
/// mbarrier.try_wait.parity in a loop (the parity).
enum MbarrierOp : int32_t { MbarrierInit = 0, MbarrierArrive, MbarrierWait };

/// Number of workgroup-memory descriptors appended to a kernel's packed
/// arguments: static then dynamic, each a memref<?xi8> descriptor (allocated
/// pointer, aligned pointer, offset, size, stride).
inline constexpr int kWorkgroupArgs = 2;
inline constexpr int kDescriptorFields = 5;

} // namespace sympow::emu::abi

extern "C" {
int64_t __sympow_emu_query(int32_t what);
void __sympow_emu_access(int64_t addr, int64_t bytes, int64_t rootBase,
                         int64_t rootBytes, int32_t flags, int64_t value,
                         const char *site);
/// anySite: a barrier of a warpgroups region (sympow_tile.warpgroups), which
/// the program's other warps reach at their own barriers.
void __sympow_emu_barrier(const char *site, int32_t anySite);
int64_t __sympow_emu_shuffle(int64_t value, int32_t offset, int32_t width,
                             int32_t mode, const char *site);
int32_t __sympow_emu_shuffle_valid();
void __sympow_emu_ldmatrix(int64_t rowAddr, int64_t rootBase, int64_t rootBytes,
                           int32_t flags, int32_t numTiles, int32_t transpose,
                           int32_t elementBytes, int64_t out, const char *site);
void __sympow_emu_mma(int32_t m, int32_t n, int32_t k, int32_t abType,
                      int32_t cType, int64_t a, int64_t b, int64_t c, int64_t d,
                      const char *site);
int32_t __sympow_emu_async_copy(int64_t dst, int64_t dstRoot,
                                int64_t dstRootBytes, int32_t dstFlags,
                                int64_t src, int64_t srcRoot,
                                int64_t srcRootBytes, int32_t srcFlags,
                                int64_t bytes, int64_t srcBytes,
                                const char *site);
int32_t __sympow_emu_async_commit();
void __sympow_emu_async_wait(int32_t pendingGroups);
/// The window address (offset in the block's workgroup memory) of the
/// matrix a wgmma descriptor starts at, host address `addr`; reports a
/// start that is not 16-byte aligned.
int64_t __sympow_emu_wgmma_start(int64_t addr, const char *site);
/// wgmma.mma_async m64nNk16 (a warpgroup collective): descriptors `descA`
/// and `descB`, `inputType` an ElementType (F16, BF16), WgmmaFlag `flags`;
/// `a` (with RegisterA) points at the thread's 8 A elements, `c` and `d`
/// at its n / 2 accumulators. `d` receives
/// placeholders (NaNs naming the MMA) that `__sympow_emu_wgmma_result`
/// turns into the values once a wait has completed the MMA's group.
void __sympow_emu_wgmma(int64_t descA, int64_t descB, int32_t n,
                        int32_t inputType, int32_t flags, int64_t a, int64_t c,
                        int64_t d, const char *site);
void __sympow_emu_wgmma_sync(int32_t what, int32_t pending, const char *site);
/// Replaces, in place, the `count` floats at `values` that are placeholders
/// of completed MMAs by their results.
void __sympow_emu_wgmma_result(int64_t values, int32_t count, const char *site);
/// The arithmetic of one MLIR block of a kernel, counted statically by the
/// lowering (vector ops count their elements) and called once at the start
/// of the block each time the calling thread executes it: f32/f16/bf16
/// FMAs, other f32/f16/bf16 ops, f64 ops, special functions (exp, log, div,
/// sqrt, ...), integer/index ops and selects; `site` names the block
/// (LaunchOptions::profileBlocks).
void __sympow_emu_count(int64_t fp32Fma, int64_t fp32Alu, int64_t fp64,
                        int64_t sfu, int64_t intAlu, const char *site);
/// An mbarrier op (MbarrierOp `what`) on the 8-byte mbarrier at host
/// address `addr` of workgroup memory, in the allocation [root, root +
/// rootBytes) (rootBytes -1: unknown); `flags` as __sympow_emu_access's
/// (the space); `value` as MbarrierOp says. A wait returns once the phase
/// with parity `value` has completed.
void __sympow_emu_mbarrier(int32_t what, int64_t addr, int64_t root,
                           int64_t rootBytes, int32_t flags, int64_t value,
                           const char *site);
/// cp.async.bulk.shared.global.mbarrier::complete_tx::bytes: `bytes` from
/// global `src` to workgroup `dst` (each in its allocation, as for
/// __sympow_emu_access), completing as transaction bytes of the current
/// phase of the mbarrier at `bar`.
void __sympow_emu_bulk_copy(int64_t dst, int64_t dstRoot, int64_t dstRootBytes,
                            int32_t dstFlags, int64_t src, int64_t srcRoot,
                            int64_t srcRootBytes, int32_t srcFlags,
                            int64_t bytes, int64_t bar, int64_t barRoot,
                            int64_t barRootBytes, int32_t barFlags,
                            const char *site);
}

#endif // SYMPOW_EMULATOR_ABI_H
