//===- WarpgroupMmaTest.cpp - wgmma on the emulator vs a CPU product ------===//
//
// One warpgroup stages A (64 x 16) and B (16 x N) in workgroup memory under
// each canonical layout (K- or MN-major, no swizzle or 128-byte swizzle),
// multiplies them twice (the second MMA chained on the first's accumulator,
// so D = 2 A B) and stores each thread's accumulators. The placements and
// the accumulator coordinates here are written from CUTLASS's canonical
// GMMA layouts (cute/atom/mma_traits_sm90_gmma.hpp) and its CLayout_64xN,
// independently of the emulator's decoding (runtime/emulator/lib/
// Warpgroup.cpp). Inputs are small integers: every result is exact.
//
//===----------------------------------------------------------------------===//

#include "EmulatorTestSupport.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Emulator/Half.h"

#include "sympow/Compiler/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace sympow;
using test::KernelArgs;

namespace {

enum class Layout { KInterleave, KSwizzle128, MNInterleave, MNSwizzle128 };

/// Where an operand's element (mn, k) goes, in elements from its buffer's
/// start, and the descriptor fields that say so (bytes).
struct Placement {
  Layout layout;
  int mnSize;      // 64 for A, N for B
  int64_t start;   // elements: where the descriptor starts
  int64_t leading; // bytes
  int64_t stride;  // bytes
  int swizzle;

  bool mnMajor() const {
    return layout == Layout::MNInterleave || layout == Layout::MNSwizzle128;
  }

  /// In 16-byte units (8 elements), cute's canonical forms:
  ///  K, interleave: ((8,m),(8,2)):((1u,SBO),(1,LBO))
  ///  K, 128B:       ((8,m),16):((8u,SBO),1), k within a 64-element row
  ///  MN, interleave: ((8,m),(8,2)):((1,SBO),(1u,LBO))
  ///  MN, 128B:      ((64,m),(8,2)):((1,LBO),(8u,SBO))
  /// then Swizzle<3,4,3> on the byte offset for the 128-byte layouts.
  int64_t offset(int mn, int k) const {
    int64_t bytes = 0;
    switch (layout) {
    case Layout::KInterleave:
      bytes =
          (mn % 8) * 16 + (mn / 8) * stride + (k % 8) * 2 + (k / 8) * leading;
      break;
    case Layout::KSwizzle128:
      bytes = (mn % 8) * 128 + (mn / 8) * stride + k * 2;
      break;
    case Layout::MNInterleave:
      bytes =
          (mn % 8) * 2 + (mn / 8) * stride + (k % 8) * 16 + (k / 8) * leading;
      break;
    case Layout::MNSwizzle128:
      bytes = (mn % 64) * 2 + (mn / 64) * leading + (k % 8) * 128 +
              (k / 8) * stride;
      break;
    }
    bytes += start * 2;
    if (swizzle)
      bytes ^= ((bytes >> 7) & 7) << 4;
    return bytes / 2;
  }
};

/// Compact placements of a 16-deep operand with `mnSize` rows or columns.
/// The K-major swizzled one uses k = 16 .. 31 of 64-element rows, so its
/// descriptor starts 32 bytes in (the step to a matrix's next 16 k).
Placement place(Layout layout, int mnSize) {
  switch (layout) {
  case Layout::KInterleave:
    return {layout, mnSize, 0, 16 * mnSize, 128, 0};
  case Layout::KSwizzle128:
    return {layout, mnSize, 16, 16, 1024, 128}; // leading unused (cute: 1)
  case Layout::MNInterleave:
    return {layout, mnSize, 0, 128, 256, 0};
  case Layout::MNSwizzle128:
    return {layout, mnSize, 0, 2048, 1024, 128};
  }
  return {};
}

/// (row, column) of accumulator i of thread t: CUTLASS's
/// CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)), which maps
/// (t, i) to m + 64 n.
std::pair<int, int> coordinate(int t, int i) {
  int t0 = t % 4, t1 = (t / 4) % 8, t2 = t / 32;
  int v0 = i % 2, v1 = (i / 2) % 2, v2 = i / 4;
  int linear = t0 * 128 + t1 + t2 * 16 + v0 * 64 + v1 * 8 + v2 * 512;
  return {linear % 64, linear / 64};
}

std::string replaceAll(std::string s, const std::string &from,
                       const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// The kernel: stage through offset tables, fence, D = A B, D += A B, wait,
/// store thread-major.
std::string kernelSource(const Placement &a, const Placement &b, int n,
                         int64_t aElements, int64_t bElements,
                         const std::string &type, bool registerA) {
  std::string source = R"(
!sa = memref<SAxTY, #gpu.address_space<workgroup>>
!sb = memref<SBxTY, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%a: memref<?xTY>, %b: memref<?xTY>, %oa: memref<?xi32>,
                  %ob: memref<?xi32>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 1024 : i64},
                  %sb: !sb {llvm.align = 1024 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %ca = arith.constant 1024 : index
      %cb = arith.constant BN : index
      %ch = arith.constant H : index
      %t = gpu.thread_id x
ASTAGE      scf.for %i = %t to %cb step %c128 {
        %x = memref.load %b[%i] : memref<?xTY>
        %o32 = memref.load %ob[%i] : memref<?xi32>
        %o = arith.index_cast %o32 : i32 to index
        memref.store %x, %sb[%o] : !sb
      }
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %sta = arith.constant STA : index
      %stb = arith.constant STB : index
ADESC      %db = sympow_tile.warpgroup_descriptor %sb[%stb] swizzle SWB leading LB stride RB : !sb
      %zero = arith.constant dense<0.0> : vector<Hxf32>
      %d1 = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false TRANS} : ATYPE, TY, vector<Hxf32>
      %d2 = sympow_tile.warpgroup_mma %da, %db, %d1 {TRANSONLY} : ATYPE, TY, vector<Hxf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %d2 : vector<Hxf32>
      %base = arith.muli %t, %ch : index
      scf.for %i = %c0 to %ch step %c1 {
        %v = vector.extract %r[%i] : f32 from vector<Hxf32>
        %at = arith.addi %base, %i : index
        memref.store %v, %d[%at] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)";
  // A staged through its table, or (registerA) each thread's 8 elements
  // loaded through it: oa[8 t + i] is where element i of thread t is in a.
  std::string stageA = registerA ? R"(
      %zeros = arith.constant dense<0.0> : vector<8xTY>
      %c8 = arith.constant 8 : index
      %t8 = arith.muli %t, %c8 : index
      %frag = scf.for %i = %c0 to %c8 step %c1 iter_args(%v = %zeros) -> vector<8xTY> {
        %at = arith.addi %t8, %i : index
        %o32 = memref.load %oa[%at] : memref<?xi32>
        %o = arith.index_cast %o32 : i32 to index
        %x = memref.load %a[%o] : memref<?xTY>
        %w = vector.insert %x, %v[%i] : TY into vector<8xTY>
        scf.yield %w : vector<8xTY>
      }
      %da = vector.shape_cast %frag : vector<8xTY> to vector<4x2xTY>
)"
                                 : R"(
      scf.for %i = %t to %ca step %c128 {
        %x = memref.load %a[%i] : memref<?xTY>
        %o32 = memref.load %oa[%i] : memref<?xi32>
        %o = arith.index_cast %o32 : i32 to index
        memref.store %x, %sa[%o] : !sa
      }
)";
  source = replaceAll(source, "ASTAGE", stageA);
  source = replaceAll(
      source, "ADESC",
      registerA ? ""
                : "      %da = sympow_tile.warpgroup_descriptor %sa[%sta] "
                  "swizzle SWA leading LA stride RA : !sa\n");
  source = replaceAll(source, "ATYPE", registerA ? "vector<4x2xTY>" : "i64");
  std::string trans;
  if (!registerA && a.mnMajor())
    trans += "transposeA";
  if (b.mnMajor())
    trans += std::string(trans.empty() ? "" : ", ") + "transposeB";
  source = replaceAll(source, "TRANSONLY", trans);
  source = replaceAll(source, "TRANS", trans.empty() ? "" : ", " + trans);
  for (auto [key, value] :
       std::initializer_list<std::pair<std::string, int64_t>>{
           {"SA", aElements},
           {"SB", bElements},
           {"BN", 16 * n},
           {"STA", a.start},
           {"STB", b.start},
           {"SWA", a.swizzle},
           {"SWB", b.swizzle},
           {"LA", a.leading},
           {"LB", b.leading},
           {"RA", a.stride},
           {"RB", b.stride}})
    source = replaceAll(source, key, std::to_string(value));
  source = replaceAll(source, "H", std::to_string(n / 2));
  return replaceAll(source, "TY", type);
}

struct Case {
  Layout a, b;
  int n;
  bool f16;
  bool registerA = false; // A from registers (`a` is then ignored)
  // Lowered for sm_80 first (ldmatrix + mma.sync per warp), as the NVVM
  // pipeline does for GPUs without wgmma.
  bool mmaSync = false;
};

void runCase(const Case &c) {
  int n = c.n;
  Placement a = place(c.a, 64), b = place(c.b, n);
  std::vector<int32_t> oa(64 * 16), ob(16 * n);
  int64_t aElements = 0, bElements = 0;
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 16; ++k) {
      oa[m * 16 + k] = static_cast<int32_t>(a.offset(m, k));
      aElements = std::max<int64_t>(aElements, oa[m * 16 + k] + 1);
    }
  if (c.registerA)
    // CUTLASS's ALayout_64x16 for A in registers is CLayout_64x16.
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 8; ++i) {
        auto [row, k] = coordinate(t, i);
        oa[t * 8 + i] = row * 16 + k;
      }
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < n; ++j) {
      ob[k * n + j] = static_cast<int32_t>(b.offset(j, k));
      bElements = std::max<int64_t>(bElements, ob[k * n + j] + 1);
    }
  // Round the buffers to whole swizzle patterns.
  aElements = (aElements + 511) / 512 * 512;
  bElements = (bElements + 511) / 512 * 512;
  std::string source = kernelSource(a, b, n, aElements, bElements,
                                    c.f16 ? "f16" : "bf16", c.registerA);
  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  EmulatorJIT::registerDialects(registry);
  context.appendDialectRegistry(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  if (c.mmaSync) {
    mlir::PassManager pm(&context);
    SympowLowerWarpgroupMmaOptions options;
    options.chip = "sm_80";
    pm.addNestedPass<mlir::gpu::GPUModuleOp>(
        createSympowLowerWarpgroupMma(options));
    ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  }
  auto jit = EmulatorJIT::compile(*module);
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());

  std::mt19937 rng(n * 16 + int(c.a) * 4 + int(c.b));
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<float> av(64 * 16), bv(16 * n);
  test::DeviceVector<uint16_t> aBits(av.size()), bBits(bv.size());
  auto bits = [&](float x) {
    return c.f16 ? emu::floatToHalf(x) : emu::floatToBf16(x);
  };
  for (size_t i = 0; i < av.size(); ++i)
    aBits[i] = bits(av[i] = static_cast<float>(dist(rng)));
  for (size_t i = 0; i < bv.size(); ++i)
    bBits[i] = bits(bv[i] = static_cast<float>(dist(rng)));
  test::DeviceVector<int32_t> oaDev(oa.begin(), oa.end()),
      obDev(ob.begin(), ob.end());
  test::DeviceVector<float> d(128 * n / 2, -1);
  KernelArgs args;
  args.buffer(aBits);
  args.buffer(bBits);
  args.buffer(oaDev);
  args.buffer(obDev);
  args.buffer(d);
  emu::LaunchOptions options;
  options.countOperations = true;
  emu::LaunchResult result = emu::launch(*(*jit)->kernel("mma"), {1, 1, 1},
                                         {128, 1, 1}, 0, args.data(), options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(result.counts.total.wgmma, c.mmaSync ? 0u : 2u);
  EXPECT_EQ(result.counts.total.mmaMultiplyAddsTotal(), 2u * 64 * 16 * n);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < n / 2; ++i) {
      auto [row, col] = coordinate(t, i);
      double expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += double(av[row * 16 + k]) * bv[k * n + col];
      ASSERT_EQ(d[t * n / 2 + i], 2 * expected)
          << "thread " << t << " element " << i << " (" << row << ", " << col
          << ")";
    }
}

TEST(WarpgroupMma, KMajorAWithNMajorB) {
  runCase({Layout::KInterleave, Layout::MNInterleave, 16, false});
}

TEST(WarpgroupMma, SwizzledKMajorAStartsThirtyTwoBytesIn) {
  runCase({Layout::KSwizzle128, Layout::KInterleave, 72, false});
}

TEST(WarpgroupMma, MMajorAWithSwizzledNMajorBAtTheWidestN) {
  runCase({Layout::MNInterleave, Layout::MNSwizzle128, 256, false});
}

TEST(WarpgroupMma, RegisterAWithNMajorB) {
  runCase({Layout::KInterleave, Layout::MNInterleave, 72, false, true});
}

TEST(WarpgroupMma, RegisterAInHalfPrecisionWithSwizzledKMajorB) {
  runCase({Layout::KInterleave, Layout::KSwizzle128, 32, true, true});
}

TEST(WarpgroupMma, SwizzledBothWaysInHalfPrecision) {
  runCase({Layout::MNSwizzle128, Layout::KSwizzle128, 8, true});
}

// The same cases lowered for sm_80.
TEST(WarpgroupMmaAsMmaSync, EveryLayout) {
  for (Case c : std::initializer_list<Case>{
           {Layout::KInterleave, Layout::MNInterleave, 16, false},
           {Layout::KSwizzle128, Layout::KInterleave, 72, false},
           {Layout::MNInterleave, Layout::MNSwizzle128, 256, false},
           {Layout::MNSwizzle128, Layout::KSwizzle128, 8, true},
           {Layout::KInterleave, Layout::MNInterleave, 72, false, true},
           {Layout::KInterleave, Layout::KSwizzle128, 32, true, true}}) {
    c.mmaSync = true;
    SCOPED_TRACE("A layout " + std::to_string(int(c.a)) + ", B layout " +
                 std::to_string(int(c.b)) + ", N " + std::to_string(c.n));
    runCase(c);
  }
}

} // namespace
