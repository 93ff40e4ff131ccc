//===- CountersTest.cpp - What the emulator counts, checked exactly -------===//
//
// Kernels whose counts follow from reading them (counts.mlir, and the
// reduction, mma, cp.async and shuffle kernels of the other tests), run
// with one and two workers: every field of LaunchResult::counts is checked
// against the number worked out by hand in the comments. Counting on or
// off gives the same results; the emulator backend records its launches.
//
//===----------------------------------------------------------------------===//

#include "EmulatorTestSupport.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Runtime/EmulatorBackend.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>

namespace sympow {
/// Failures name each field.
void PrintTo(const OpCounts &c, std::ostream *os) {
  forEachCount(c, [&](const char *name, const uint64_t &v) {
    if (v)
      *os << name << " " << v << ", ";
  });
}
} // namespace sympow

using namespace sympow;
using emu::Dim3;
using test::compileFile;
using test::KernelArgs;

namespace {

emu::LaunchResult run(const emu::Kernel &kernel, Dim3 grid, Dim3 block,
                      KernelArgs &args, unsigned workers, bool count = true) {
  emu::LaunchOptions options;
  options.workers = workers;
  options.countOperations = count;
  return emu::launch(kernel, grid, block, 0, args.data(), options);
}

/// The @counts kernel of counts.mlir for one block (64 threads): per thread
/// 3 loads (2 f32 + vector<4xf32>: 24 bytes), 1 store (4 bytes), 5 integer
/// ops (muli, 2 addi, cmpi; libdevice's exp 1), 15 FMAs (3 x 5 iterations),
/// 15 float ops (vector mulf 4, reduction 3, addf 1; libdevice's exp 6, the
/// approximate log 1), 3 sfu (exp, log, divf), 1 barrier per block; block 2
/// takes the scf.if branch: 2 more float ops per thread.
/// Sectors per warp (its 32 floats at a 128-byte boundary): in[i] 4,
/// in[i + 1] 5 (one float past), the vector 5 (bytes 0..139); out[i] 4.
OpCounts countsBlock(bool block2) {
  OpCounts c;
  c.globalLoads = 3 * 64;
  c.globalLoadBytes = 24 * 64;
  c.globalStores = 64;
  c.globalStoreBytes = 4 * 64;
  c.globalLoadSectors = 2 * (4 + 5 + 5);
  c.globalStoreSectors = 2 * 4;
  c.intAlu = 5 * 64;
  c.fp32Fma = 15 * 64;
  c.fp32Alu = (15 + (block2 ? 2 : 0)) * 64;
  c.sfu = 3 * 64;
  c.barriers = 1;
  return c;
}

TEST(Counters, HandCountedKernel) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "counts.mlir");
  ASSERT_TRUE(jit);
  const emu::Kernel *kernel = jit->kernel("counts");
  ASSERT_TRUE(kernel);
  for (unsigned workers : {1u, 2u}) {
    test::DeviceVector<float> in(260, 0.5f), out(256);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    auto r = run(*kernel, {4, 1, 1}, {64, 1, 1}, args, workers);
    ASSERT_TRUE(r.ok()) << r.message();
    const LaunchCounts &c = r.counts;
    EXPECT_EQ(c.grid, (std::array<uint32_t, 3>{4, 1, 1}));
    EXPECT_EQ(c.block, (std::array<uint32_t, 3>{64, 1, 1}));
    EXPECT_EQ(c.blocks(), 4u);
    OpCounts total;
    for (int b = 0; b < 4; ++b)
      total += countsBlock(b == 2);
    EXPECT_EQ(c.total, total) << "workers " << workers;
    EXPECT_EQ(c.total.fp32Fma, 3840u);
    EXPECT_EQ(c.total.operations(), 10880u);
    EXPECT_EQ(c.heaviest, countsBlock(true));
    EXPECT_EQ(c.heaviest.operations(), 2816u);
    EXPECT_EQ(c.heaviestBlock, (std::array<uint32_t, 3>{2, 0, 0}));
    // Thread i reads in[i .. i + 3]: 259 distinct floats; writes out[i].
    EXPECT_EQ(c.globalLoadDistinctBytes, 259u * 4);
    EXPECT_EQ(c.globalStoreDistinctBytes, 256u * 4);
  }
}

TEST(Counters, DistinctBytesAcrossPagesAndWorkers) {
  // 1024 blocks read 256 KiB + 12 bytes: several 64 KiB bitmap pages, the
  // blocks spread over two workers that share them.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "counts.mlir");
  ASSERT_TRUE(jit);
  const uint32_t blocks = 1024;
  std::vector<float> in(64 * blocks + 4, 0.25f), out(64 * blocks);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto r = run(*jit->kernel("counts"), {blocks, 1, 1}, {64, 1, 1}, args, 2);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.counts.globalLoadDistinctBytes, (64u * blocks + 3) * 4);
  EXPECT_EQ(r.counts.globalStoreDistinctBytes, 64u * blocks * 4);
  EXPECT_EQ(r.counts.total.globalLoadBytes, 24u * 64 * blocks);
  EXPECT_EQ(r.counts.heaviestBlock, (std::array<uint32_t, 3>{2, 0, 0}));
}

TEST(Counters, DeviceFunctionsAndF64) {
  // counts.mlir @f64_call: per thread sitofp, 2 x (fma, mulf) in the device
  // function, cmpf: 6 fp64; index_cast and select: 2 int; one f64 store.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "counts.mlir");
  ASSERT_TRUE(jit);
  test::DeviceVector<double> out(32);
  KernelArgs args;
  args.buffer(out);
  auto r = run(*jit->kernel("f64_call"), {1, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  OpCounts expected;
  expected.fp64 = 6 * 32;
  expected.intAlu = 2 * 32;
  expected.globalStores = 32;
  expected.globalStoreBytes = 8 * 32;
  expected.globalStoreSectors = 8; // 256 contiguous bytes
  EXPECT_EQ(r.counts.total, expected);
  EXPECT_EQ(r.counts.heaviest, expected);
  EXPECT_EQ(r.counts.globalStoreDistinctBytes, 256u);
  EXPECT_EQ(r.counts.globalLoadDistinctBytes, 0u);
}

TEST(Counters, WorkgroupReductionAndBarriers) {
  // reduce.mlir, 4 blocks of 64: per block 64 global loads, 64 workgroup
  // stores, barriers 1 + 6; the tree's 6 steps have 32 + 16 + ... + 1 = 63
  // active threads, each 2 workgroup loads, an addf, an addi and a store;
  // every thread does shrui + cmpi per step and muli, addi, cmpi once;
  // thread 0 loads buf[0] and stores one result. Warp accesses: the
  // global load 4 sectors per warp; every workgroup access is consecutive
  // words, one wavefront: 2 stores, then per step 2 loads and a store by
  // warp 0 alone, then thread 0's load.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "reduce.mlir");
  ASSERT_TRUE(jit);
  OpCounts block;
  block.globalLoads = 64;
  block.globalLoadBytes = 256;
  block.globalStores = 1;
  block.globalStoreBytes = 4;
  block.sharedLoads = 2 * 63 + 1;
  block.sharedLoadBytes = 4 * block.sharedLoads;
  block.sharedStores = 64 + 63;
  block.sharedStoreBytes = 4 * block.sharedStores;
  block.globalLoadSectors = 8;
  block.globalStoreSectors = 1;
  block.sharedLoadWavefronts = 2 * 6 + 1;
  block.sharedStoreWavefronts = 2 + 6;
  block.fp32Alu = 63;
  block.intAlu = 3 * 64 + 2 * 6 * 64 + 63;
  block.barriers = 7;
  for (unsigned workers : {1u, 2u}) {
    test::DeviceVector<float> in(256, 1.0f), out(4);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    auto r = run(*jit->kernel("reduce"), {4, 1, 1}, {64, 1, 1}, args, workers);
    ASSERT_TRUE(r.ok()) << r.message();
    OpCounts total;
    for (int b = 0; b < 4; ++b)
      total += block;
    EXPECT_EQ(r.counts.total, total);
    EXPECT_EQ(r.counts.heaviest, block);
    // Equal blocks: the heaviest is the first.
    EXPECT_EQ(r.counts.heaviestBlock, (std::array<uint32_t, 3>{0, 0, 0}));
    EXPECT_EQ(r.counts.staticSharedBytes, 256u);
    EXPECT_EQ(r.counts.globalLoadDistinctBytes, 1024u);
    EXPECT_EQ(r.counts.globalStoreDistinctBytes, 16u);
  }
}

TEST(Counters, LdMatrixAndMmaSync) {
  // mma.mlir @mma_bf16 on one warp: each lane copies 8 + 4 bf16 from global
  // to workgroup memory, a barrier, ldmatrix x4 and x2 (6 tiles of 8 rows of
  // 16 bytes: 768 workgroup bytes), one m16n8k16 mma, 4 f32 stores per lane.
  // Integer ops per lane: (muli, addi, divui, remui) x (8 + 4) iterations,
  // 3 for the fragment rows, 3 + 4 x 4 for the stores: 70.
  // Warp accesses: lane l reads A[8 l + e] (16 bytes apart: 16 sectors per
  // iteration) and B[4 l + e] (8 sectors); its workgroup stores at 16 l and
  // 8 l bytes meet 4 and 2 lanes to a bank (4 and 2 wavefronts). ldmatrix:
  // A's 32-byte rows put rows r and r + 4 of each matrix in the same banks
  // (4 matrices x 2 wavefronts), B's 16-byte rows are contiguous (2 x 1).
  // Each f32 store of D covers 8 rows of 32 bytes: 8 sectors.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "mma.mlir");
  ASSERT_TRUE(jit);
  test::DeviceVector<uint16_t> a(256, 0x3f80), b(128, 0x3f80); // bf16 1.0
  test::DeviceVector<float> d(128);
  KernelArgs args;
  args.buffer(a);
  args.buffer(b);
  args.buffer(d);
  auto r = run(*jit->kernel("mma_bf16"), {1, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  OpCounts expected;
  expected.globalLoads = 32 * 12;
  expected.globalLoadBytes = 2 * 32 * 12;
  expected.sharedStores = 32 * 12;
  expected.sharedStoreBytes = 2 * 32 * 12;
  expected.sharedLoadBytes = 6 * 8 * 16;
  expected.ldmatrix = 2;
  expected.mma[static_cast<int>(MmaShape::M16N8K16F16)] = 1;
  expected.globalStores = 32 * 4;
  expected.globalStoreBytes = 4 * 32 * 4;
  expected.intAlu = 32 * 70;
  expected.barriers = 1;
  expected.globalLoadSectors = 8 * 16 + 4 * 8;
  expected.globalStoreSectors = 4 * 8;
  expected.sharedStoreWavefronts = 8 * 4 + 4 * 2;
  expected.sharedLoadWavefronts = 4 * 2 + 2 * 1;
  EXPECT_EQ(r.counts.total, expected);
  EXPECT_EQ(r.counts.total.mmaMultiplyAddsTotal(), 16u * 8 * 16);
  EXPECT_EQ(r.counts.globalLoadDistinctBytes, 512u + 256u);
  EXPECT_EQ(r.counts.globalStoreDistinctBytes, 512u);
}

TEST(Counters, TF32MmaShape) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "mma-tf32.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> a(128, 1), b(64, 1), d(128);
  KernelArgs args;
  args.buffer(a);
  args.buffer(b);
  args.buffer(d);
  auto r = run(*jit->kernel("tf32"), {1, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.counts.total.mmaCount(MmaShape::M16N8K8TF32), 1u);
  EXPECT_EQ(r.counts.total.mmaCount(MmaShape::M16N8K16F16), 0u);
  EXPECT_EQ(r.counts.total.ldmatrix, 0u);
}

TEST(Counters, AsyncCopy) {
  // async-copy.mlir, 32 threads: one 16-byte cp.async each (a global load
  // of 16 bytes, 16 workgroup bytes stored, no workgroup store
  // instruction), a barrier, then 4 x (workgroup load, mulf, global store)
  // and 1 + 4 x 3 integer ops. Warp accesses: the copies read 512
  // contiguous bytes (16 sectors) and write them in four 8-lane phases (4
  // wavefronts); lane l then reads word 4 l + e + 4, four lanes to a bank
  // (4 wavefronts each), and stores 16 l + 4 e: 16 sectors each.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "async-copy.mlir");
  ASSERT_TRUE(jit);
  test::DeviceVector<float> in(128, 1), out(128);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto r = run(*jit->kernel("copy"), {1, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  OpCounts expected;
  expected.globalLoads = 32;
  expected.globalLoadBytes = 512;
  expected.sharedStoreBytes = 512;
  expected.sharedLoads = 128;
  expected.sharedLoadBytes = 512;
  expected.fp32Alu = 128;
  expected.globalStores = 128;
  expected.globalStoreBytes = 512;
  expected.intAlu = 32 * 13;
  expected.barriers = 1;
  expected.globalLoadSectors = 16;
  expected.globalStoreSectors = 4 * 16;
  expected.sharedStoreWavefronts = 4;
  expected.sharedLoadWavefronts = 4 * 4;
  EXPECT_EQ(r.counts.total, expected);
  EXPECT_EQ(r.counts.globalLoadDistinctBytes, 512u);
  EXPECT_EQ(r.counts.globalStoreDistinctBytes, 512u);
}

TEST(Counters, BulkCopies) {
  // bulk-copy.mlir, 128 threads, two rounds: thread 0 issues 4 bulk copies
  // of 256 bytes a round (each one warp instruction, bulk_copies, that
  // loads 256 global bytes: 8 sectors of
  // the 256-byte aligned buffer, and 256 workgroup bytes stored in 2
  // wavefronts, no workgroup store instruction). Every thread loads 2
  // floats of the tile a round (one wavefront per warp load) and stores 2
  // (4 sectors per warp store), with 1 mulf each. Integer ops: cmpi, per
  // round muli and remui, per load muli and 2 addi, 2 per copy (muli,
  // addi); an mbarrier op counts 1: thread 0's init and 2 arrivals,
  // everyone's 2 waits. 3 barriers.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "bulk-copy.mlir");
  ASSERT_TRUE(jit);
  test::DeviceVector<float> in(512, 1), out(512);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto r = run(*jit->kernel("rounds"), {1, 1, 1}, {128, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  OpCounts expected;
  expected.bulkCopies = 8;
  expected.globalLoadBytes = 2048;
  expected.globalLoadSectors = 8 * 8;
  expected.sharedStoreBytes = 2048;
  expected.sharedStoreWavefronts = 8 * 2;
  expected.sharedLoads = 2 * 2 * 128;
  expected.sharedLoadBytes = 2048;
  expected.sharedLoadWavefronts = 2 * 2 * 4;
  expected.globalStores = 2 * 2 * 128;
  expected.globalStoreBytes = 2048;
  expected.globalStoreSectors = 2 * 2 * 4 * 4;
  expected.fp32Alu = 2 * 2 * 128;
  expected.intAlu = 128 * (1 + 2 * (2 + 2 * 3) + 2) + 1 + 2 * (4 * 2 + 1);
  expected.barriers = 3;
  EXPECT_EQ(r.counts.total, expected);
  EXPECT_EQ(r.counts.globalLoadDistinctBytes, 2048u);
  EXPECT_EQ(r.counts.globalStoreDistinctBytes, 2048u);
}

TEST(Counters, ShufflesOncePerWarp) {
  // shuffle.mlir, one warp: 5 shuffles (one of width 16); index_cast,
  // sitofp, mulf once, (muli, addi, extui) x 5 per lane.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "shuffle.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> out(160);
  std::vector<int32_t> valid(160);
  KernelArgs args;
  args.buffer(out);
  args.buffer(valid);
  auto r = run(*jit->kernel("shuffle"), {1, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r.counts.total.shuffles, 5u);
  EXPECT_EQ(r.counts.total.fp32Alu, 32u * 2);
  EXPECT_EQ(r.counts.total.intAlu, 32u * (1 + 3 * 5));
  EXPECT_EQ(r.counts.total.globalStores, 32u * 10);
}

TEST(Counters, CountingDoesNotChangeResults) {
  mlir::MLIRContext context;
  auto counts = compileFile(context, "counts.mlir");
  auto mma = compileFile(context, "mma.mlir");
  ASSERT_TRUE(counts && mma);
  auto launchCounts = [&](bool on, std::vector<float> &out) {
    std::vector<float> in(260);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = 0.01f * static_cast<float>(i % 17);
    out.assign(256, 0);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    return run(*counts->kernel("counts"), {4, 1, 1}, {64, 1, 1}, args, 2, on);
  };
  std::vector<float> on, off;
  auto rOn = launchCounts(true, on);
  auto rOff = launchCounts(false, off);
  ASSERT_TRUE(rOn.ok() && rOff.ok()) << rOn.message() << rOff.message();
  EXPECT_EQ(std::memcmp(on.data(), off.data(), on.size() * 4), 0);
  EXPECT_NE(rOn.counts.total.operations(), 0u);
  // Off: only the launch's shape.
  EXPECT_EQ(rOff.counts.total, OpCounts());
  EXPECT_EQ(rOff.counts.heaviest, OpCounts());
  EXPECT_EQ(rOff.counts.globalLoadDistinctBytes, 0u);
  EXPECT_EQ(rOff.counts.grid, (std::array<uint32_t, 3>{4, 1, 1}));

  auto launchMma = [&](bool on, std::vector<float> &d) {
    std::vector<uint16_t> a(256), b(128);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<uint16_t>(0x3c00 + (i % 7)); // f16 near 1
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = static_cast<uint16_t>(0x3800 + (i % 5));
    d.assign(128, 0);
    KernelArgs args;
    args.buffer(a);
    args.buffer(b);
    args.buffer(d);
    return run(*mma->kernel("mma_f16"), {1, 1, 1}, {32, 1, 1}, args, 1, on);
  };
  std::vector<float> dOn, dOff;
  auto mOn = launchMma(true, dOn), mOff = launchMma(false, dOff);
  ASSERT_TRUE(mOn.ok() && mOff.ok());
  EXPECT_EQ(std::memcmp(dOn.data(), dOff.data(), dOn.size() * 4), 0);
  EXPECT_EQ(mOn.counts.total.mmaCount(MmaShape::M16N8K16F16), 1u);
  EXPECT_EQ(mOff.counts.total.mmaCount(MmaShape::M16N8K16F16), 0u);
}

TEST(Counters, FaultingLaunchCountsWhatRan) {
  // A faulting launch still reports; its counts are what ran before.
  mlir::MLIRContext context;
  auto jit = compileFile(context, "out-of-bounds.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(64, 1), out(64, 0);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto r = run(*jit->kernel("shift"), {2, 1, 1}, {32, 1, 1}, args, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.reports[0].kind, emu::ReportKind::OutOfBounds);
  // Block 0 and threads 0..30 of block 1 ran; thread 31's load did not
  // happen and is not counted.
  EXPECT_EQ(r.counts.total.globalLoads, 63u);
  EXPECT_EQ(r.counts.total.globalStores, 63u);
  EXPECT_EQ(r.counts.heaviestBlock, (std::array<uint32_t, 3>{0, 0, 0}));
}

TEST(Counters, EmulatorBackendRecordsLaunches) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "counts.mlir");
  ASSERT_TRUE(jit);
  auto backend = runtime::createEmulatorBackend();
  EXPECT_TRUE(runtime::takeEmulatorLaunches(*backend).empty());
  auto module = backend->loadModule(&jit->module(), 0,
                                    runtime::ImageFormat::EmulatorModule);
  ASSERT_TRUE(module.isOk()) << module.message();
  auto kernel = backend->getKernel(module.value(), "counts");
  ASSERT_TRUE(kernel.isOk()) << kernel.message();
  std::vector<float> in(260, 0.5f), out(256);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  runtime::LaunchConfig config;
  config.grid = {4, 1, 1};
  config.block = {64, 1, 1};
  for (int i = 0; i < 2; ++i) {
    Status s = backend->launch(kernel.value(), config, args.data());
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  std::vector<runtime::EmulatorLaunch> launches =
      runtime::takeEmulatorLaunches(*backend);
  ASSERT_EQ(launches.size(), 2u);
  for (const runtime::EmulatorLaunch &l : launches) {
    EXPECT_EQ(l.kernel, "counts");
    EXPECT_EQ(l.counts.grid, (std::array<uint32_t, 3>{4, 1, 1}));
    EXPECT_EQ(l.counts.block, (std::array<uint32_t, 3>{64, 1, 1}));
    EXPECT_EQ(l.counts.total.operations(), 10880u);
    EXPECT_EQ(l.counts.heaviestBlock, (std::array<uint32_t, 3>{2, 0, 0}));
  }
  EXPECT_TRUE(runtime::takeEmulatorLaunches(*backend).empty());
}

} // namespace
