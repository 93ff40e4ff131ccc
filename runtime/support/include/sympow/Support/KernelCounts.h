//===- KernelCounts.h - What one kernel launch did --------------*- C++ -*-===//
//
// The work of a kernel launch, as the emulator counts it and the GPU model
// (runtime/layer/GpuModel.h) turns it into time: bytes moved per memory
// space, arithmetic by unit, tensor-core instructions by shape, barriers.
// One definition for the emulator that fills it, the model that reads it,
// sympow-bench that prints it and the calibration fixture that stores it.
//
// Thread-level operations count once per thread that executes them (a
// vector<4xf32> multiply is 4); warp collectives (mma, ldmatrix) count once
// per warp; barriers once per block.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_KERNELCOUNTS_H
#define SYMPOW_SUPPORT_KERNELCOUNTS_H

#include <array>
#include <cstdint>

namespace sympow {

/// Tensor-core instruction shapes, by the operand type class that sets
/// their rate (16-bit inputs or tf32).
enum class MmaShape : int {
  M16N8K16F16 = 0, // mma.sync m16n8k16, f16/bf16 operands
  M16N8K8F16,      // mma.sync m16n8k8, f16/bf16 operands
  M16N8K8TF32,     // mma.sync m16n8k8, tf32 operands
  M16N8K4TF32,     // mma.sync m16n8k4, tf32 operands
};
inline constexpr int kNumMmaShapes = 4;

/// "m16n8k16.f16" etc.: JSON keys and table columns.
inline const char *mmaShapeName(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16F16:
    return "m16n8k16.f16";
  case MmaShape::M16N8K8F16:
    return "m16n8k8.f16";
  case MmaShape::M16N8K8TF32:
    return "m16n8k8.tf32";
  case MmaShape::M16N8K4TF32:
    return "m16n8k4.tf32";
  }
  return "?";
}

/// Multiply-adds of one instruction of `shape` (one warp): m * n * k.
inline constexpr int64_t mmaMultiplyAdds(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16F16:
    return 16 * 8 * 16;
  case MmaShape::M16N8K8F16:
  case MmaShape::M16N8K8TF32:
    return 16 * 8 * 8;
  case MmaShape::M16N8K4TF32:
    return 16 * 8 * 4;
  }
  return 0;
}

/// Whether `shape` runs at the tf32 rate (half the 16-bit rate).
inline constexpr bool mmaIsTF32(MmaShape shape) {
  return shape == MmaShape::M16N8K8TF32 || shape == MmaShape::M16N8K4TF32;
}

/// The work of a set of threads: one block, or a whole launch.
struct OpCounts {
  // Global memory, as the threads access it (cp.async sources included).
  uint64_t globalLoadBytes = 0;
  uint64_t globalStoreBytes = 0;
  uint64_t globalLoads = 0;  // load instructions (thread level)
  uint64_t globalStores = 0; // store and atomic instructions
  // Workgroup (shared) memory (ldmatrix and cp.async destinations included).
  uint64_t sharedLoadBytes = 0;
  uint64_t sharedStoreBytes = 0;
  uint64_t sharedLoads = 0;
  uint64_t sharedStores = 0;
  // How the warps' accesses are served, once per warp instruction: 32-byte
  // sectors of global memory, wavefronts of workgroup memory (bank
  // conflicts add wavefronts; ldmatrix and cp.async destinations included).
  uint64_t globalLoadSectors = 0;
  uint64_t globalStoreSectors = 0;
  uint64_t sharedLoadWavefronts = 0;
  uint64_t sharedStoreWavefronts = 0;
  // Arithmetic, thread level.
  uint64_t fp32Fma = 0; // f32 (and f16/bf16 scalar) fused multiply-adds
  uint64_t fp32Alu = 0; // other f32/f16/bf16 add, mul, min/max, cmp, cvt
  uint64_t fp64 = 0;    // f64 arithmetic (an FMA counts 1)
  uint64_t sfu = 0;     // exp, log, sin, cos, sqrt, rsqrt, div, pow, tanh
  uint64_t intAlu = 0;  // integer and index arithmetic, selects
  // Warp collectives, once per warp.
  std::array<uint64_t, kNumMmaShapes> mma{}; // by MmaShape
  uint64_t ldmatrix = 0;
  uint64_t shuffles = 0;
  // Bulk copies (cp.async.bulk), one warp instruction each: its operands
  // are uniform registers, so a warp issues one per distinct copy whether
  // one lane or several ask.
  uint64_t bulkCopies = 0;
  // Warpgroup MMAs (wgmma, sm_90a), once per warpgroup, and their
  // multiply-adds (64 x N x 16 each).
  uint64_t wgmma = 0;
  uint64_t wgmmaMultiplyAdds = 0;
  // Once per block.
  uint64_t barriers = 0;

  uint64_t mmaCount(MmaShape shape) const {
    return mma[static_cast<int>(shape)];
  }
  /// Multiply-adds on tensor cores (16-bit and tf32 rates together).
  uint64_t mmaMultiplyAddsTotal() const {
    uint64_t total = 0;
    for (int i = 0; i < kNumMmaShapes; ++i)
      total += mma[i] * mmaMultiplyAdds(static_cast<MmaShape>(i));
    return total + wgmmaMultiplyAdds;
  }
  /// Thread-level operations of every kind: what "heaviest block" compares.
  uint64_t operations() const {
    return globalLoads + globalStores + sharedLoads + sharedStores + fp32Fma +
           fp32Alu + fp64 + sfu + intAlu +
           32 * (ldmatrix + shuffles + bulkCopies) +
           32 * (mma[0] + mma[1] + mma[2] + mma[3]) + 128 * wgmma;
  }

  OpCounts &operator+=(const OpCounts &o);
  bool operator==(const OpCounts &o) const;
  bool operator!=(const OpCounts &o) const { return !(*this == o); }
};

/// Calls `f(name, field)` for every field of OpCounts that is one number
/// (mma shapes as "mma.<shape>"): one list for JSON, tables and fixtures.
template <typename Counts, typename F> void forEachCount(Counts &c, F &&f) {
  f("global_load_bytes", c.globalLoadBytes);
  f("global_store_bytes", c.globalStoreBytes);
  f("global_loads", c.globalLoads);
  f("global_stores", c.globalStores);
  f("shared_load_bytes", c.sharedLoadBytes);
  f("shared_store_bytes", c.sharedStoreBytes);
  f("shared_loads", c.sharedLoads);
  f("shared_stores", c.sharedStores);
  f("global_load_sectors", c.globalLoadSectors);
  f("global_store_sectors", c.globalStoreSectors);
  f("shared_load_wavefronts", c.sharedLoadWavefronts);
  f("shared_store_wavefronts", c.sharedStoreWavefronts);
  f("fp32_fma", c.fp32Fma);
  f("fp32_alu", c.fp32Alu);
  f("fp64", c.fp64);
  f("sfu", c.sfu);
  f("int_alu", c.intAlu);
  f("mma.m16n8k16.f16", c.mma[0]);
  f("mma.m16n8k8.f16", c.mma[1]);
  f("mma.m16n8k8.tf32", c.mma[2]);
  f("mma.m16n8k4.tf32", c.mma[3]);
  f("ldmatrix", c.ldmatrix);
  f("shuffles", c.shuffles);
  f("bulk_copies", c.bulkCopies);
  f("wgmma", c.wgmma);
  f("wgmma_multiply_adds", c.wgmmaMultiplyAdds);
  f("barriers", c.barriers);
}

/// The number of fields forEachCount visits: all of them.
inline constexpr int kNumCounts = 27;
static_assert(sizeof(OpCounts) == kNumCounts * sizeof(uint64_t),
              "a field of OpCounts is missing from forEachCount");

/// Field `index` (forEachCount's order) of `c`, and its name.
template <typename Counts> auto &countAt(Counts &c, int index) {
  decltype(&c.globalLoadBytes) field = nullptr;
  int i = 0;
  forEachCount(c, [&](const char *, auto &v) {
    if (i++ == index)
      field = &v;
  });
  return *field;
}
inline const char *countName(int index) {
  const char *name = "";
  int i = 0;
  OpCounts c;
  forEachCount(c, [&](const char *n, uint64_t &) {
    if (i++ == index)
      name = n;
  });
  return name;
}

inline OpCounts &OpCounts::operator+=(const OpCounts &o) {
  for (int i = 0; i < kNumCounts; ++i)
    countAt(*this, i) += countAt(o, i);
  return *this;
}
inline bool OpCounts::operator==(const OpCounts &o) const {
  for (int i = 0; i < kNumCounts; ++i)
    if (countAt(*this, i) != countAt(o, i))
      return false;
  return true;
}

/// One kernel launch: its shape, the whole launch's counts, the counts of
/// its heaviest block (most operations(); it bounds a grid that does not
/// fill the GPU) and the distinct global bytes the launch touched.
struct LaunchCounts {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint64_t dynamicSharedBytes = 0;
  uint64_t staticSharedBytes = 0;
  OpCounts total;
  OpCounts heaviest;
  std::array<uint32_t, 3> heaviestBlock{0, 0, 0};
  // Bytes of global memory loaded (stored) at least once; each byte counts
  // once however often it is accessed.
  uint64_t globalLoadDistinctBytes = 0;
  uint64_t globalStoreDistinctBytes = 0;

  uint64_t blocks() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
  uint64_t threadsPerBlock() const {
    return uint64_t(block[0]) * block[1] * block[2];
  }
};

} // namespace sympow

#endif // SYMPOW_SUPPORT_KERNELCOUNTS_H
