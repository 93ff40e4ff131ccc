//===- EmulatorTest.cpp - Hand-written gpu IR run on the emulator ---------===//
//
// Each test JIT-compiles one of the .mlir kernels next to this file and
// checks what the emulator computes or reports: right numbers for correct
// kernels, and a report naming kernel, block, thread and address for a
// removed barrier, an out-of-bounds index and a divergent barrier.
//
//===----------------------------------------------------------------------===//

#include "EmulatorTestSupport.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Emulator/Half.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <random>

using namespace sympow;
using test::compileFile;
using test::KernelArgs;
using emu::Dim3;
using emu::ReportKind;

namespace {

const emu::Report *find(const emu::LaunchResult &r, ReportKind kind) {
  for (const emu::Report &report : r.reports)
    if (report.kind == kind)
      return &report;
  return nullptr;
}

TEST(Emulator, BlockReductionThroughWorkgroupMemory) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "reduce.mlir");
  ASSERT_TRUE(jit);
  const emu::Kernel *kernel = jit->kernel("reduce");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->staticSharedBytes, 64u * 4);
  for (unsigned workers : {1u, 2u}) {
    std::vector<float> in(64 * 16), out(16, -1);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<float>(i % 97);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    emu::LaunchOptions options;
    options.workers = workers;
    auto result =
        emu::launch(*kernel, {16, 1, 1}, {64, 1, 1}, 0, args.data(), options);
    EXPECT_TRUE(result.ok()) << result.message();
    for (int b = 0; b < 16; ++b) {
      float expected = 0;
      for (int i = 0; i < 64; ++i)
        expected += in[b * 64 + i];
      EXPECT_EQ(out[b], expected) << "block " << b;
    }
  }
}

TEST(Emulator, RemovedBarrierIsARace) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "reduce-race.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(64, 1), out(1);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto result = emu::launch(*jit->kernel("reduce"), {1, 1, 1}, {64, 1, 1}, 0,
                            args.data());
  const emu::Report *race = find(result, ReportKind::Race);
  ASSERT_TRUE(race) << result.message();
  EXPECT_EQ(race->kernel, "reduce");
  EXPECT_EQ(race->space, 1); // workgroup
  EXPECT_NE(race->thread.x, race->otherThread.x);
  EXPECT_EQ(race->offset % 4, 0);
  EXPECT_NE(race->message.find("no barrier between them"), std::string::npos);
}

TEST(Emulator, OutOfBoundsGlobalReadStopsTheLaunch) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "out-of-bounds.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(64, 1), out(64, 0);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  emu::LaunchOptions options;
  options.workers = 1;
  auto result = emu::launch(*jit->kernel("shift"), {2, 1, 1}, {32, 1, 1}, 0,
                            args.data(), options);
  ASSERT_EQ(result.reports.size(), 1u) << result.message();
  const emu::Report &r = result.reports[0];
  EXPECT_EQ(r.kind, ReportKind::OutOfBounds);
  EXPECT_EQ(r.kernel, "shift");
  EXPECT_EQ(r.block, (Dim3{1, 0, 0}));
  EXPECT_EQ(r.thread, (Dim3{31, 0, 0}));
  EXPECT_EQ(r.space, 0);
  EXPECT_EQ(r.offset, 256);
  EXPECT_EQ(r.bytes, 4);
  EXPECT_EQ(r.allocBytes, 256);
  EXPECT_NE(r.site.find("memref.load at out-of-bounds.mlir:"),
            std::string::npos)
      << r.site;
  // The faulting access did not happen.
  EXPECT_EQ(out[63], 0);
}

TEST(Emulator, OutOfBoundsWorkgroupWrite) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "workgroup-out-of-bounds.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> out(33);
  KernelArgs args;
  args.buffer(out);
  auto result =
      emu::launch(*jit->kernel("tile"), {1, 1, 1}, {33, 1, 1}, 0, args.data());
  const emu::Report *r = find(result, ReportKind::OutOfBounds);
  ASSERT_TRUE(r) << result.message();
  EXPECT_EQ(r->thread, (Dim3{32, 0, 0}));
  EXPECT_EQ(r->space, 1);
  EXPECT_EQ(r->offset, 128);
  EXPECT_EQ(r->allocBytes, 128);
}

TEST(Emulator, DivergentBarrierIsReportedNotHung) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "divergent-barrier.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> out(64 * 3);
  KernelArgs args;
  args.buffer(out);
  auto result = emu::launch(*jit->kernel("diverge"), {3, 1, 1}, {64, 1, 1}, 0,
                            args.data());
  const emu::Report *r = find(result, ReportKind::DivergentBarrier);
  ASSERT_TRUE(r) << result.message();
  EXPECT_EQ(r->kernel, "diverge");
  EXPECT_NE(r->message.find("16 threads (first (0, 0, 0)) wait at gpu.barrier"),
            std::string::npos)
      << r->message;
  EXPECT_NE(r->message.find("48 threads (first (16, 0, 0)) exited"),
            std::string::npos)
      << r->message;
}

TEST(Emulator, ShuffleModes) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "shuffle.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> out(5 * 32);
  std::vector<int32_t> valid(5 * 32);
  KernelArgs args;
  args.buffer(out);
  args.buffer(valid);
  auto result = emu::launch(*jit->kernel("shuffle"), {1, 1, 1}, {32, 1, 1}, 0,
                            args.data());
  ASSERT_TRUE(result.ok()) << result.message();
  for (int l = 0; l < 32; ++l) {
    // {source lane, in range} per the gpu.shuffle semantics (PTX shfl.sync).
    std::pair<int, bool> expected[5] = {
        {l ^ 1, true},                        // xor 1
        {l + 3 < 32 ? l + 3 : l, l + 3 < 32}, // down 3
        {l - 2 >= 0 ? l - 2 : l, l - 2 >= 0}, // up 2
        {5, true},                            // idx 5
        {l + 3 < 16 ? l + 3 : l, l + 3 < 16}, // down 3, width 16
    };
    for (int k = 0; k < 5; ++k) {
      if (k == 4 && l >= 16)
        continue; // lanes past the width are outside the shuffle
      EXPECT_EQ(out[k * 32 + l], 10.0f * expected[k].first)
          << "shuffle " << k << " lane " << l;
      EXPECT_EQ(valid[k * 32 + l], expected[k].second ? 1 : 0)
          << "shuffle " << k << " lane " << l;
    }
  }
}

/// ldmatrix + mma.sync m16n8k16 against a CPU matmul of the same rounded
/// inputs.
void checkMma(const char *kernelName, bool bf16) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "mma.mlir");
  ASSERT_TRUE(jit);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> a(16 * 16), b(16 * 8);
  std::vector<float> af(a.size()), bf(b.size());
  auto fill = [&](std::vector<uint16_t> &bits, std::vector<float> &values) {
    for (size_t i = 0; i < bits.size(); ++i) {
      float x = normal(rng);
      bits[i] = bf16 ? emu::floatToBf16(x) : emu::floatToHalf(x);
      values[i] = bf16 ? emu::bf16ToFloat(bits[i]) : emu::halfToFloat(bits[i]);
    }
  };
  fill(a, af);
  fill(b, bf);
  std::vector<float> d(16 * 8, NAN);
  KernelArgs args;
  args.buffer(a);
  args.buffer(b);
  args.buffer(d);
  auto result = emu::launch(*jit->kernel(kernelName), {1, 1, 1}, {32, 1, 1}, 0,
                            args.data());
  ASSERT_TRUE(result.ok()) << result.message();
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += static_cast<double>(af[m * 16 + k]) * bf[k * 8 + n];
      EXPECT_NEAR(d[m * 8 + n], expected, 1e-5 * (1 + std::fabs(expected)))
          << kernelName << " D[" << m << "][" << n << "]";
    }
}

TEST(Emulator, LdMatrixMmaSyncF16) { checkMma("mma_f16", false); }
TEST(Emulator, LdMatrixMmaSyncBF16) { checkMma("mma_bf16", true); }

TEST(Emulator, AsyncCopyGroupsAndWait) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "async-copy.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(128), out(128);
  for (int i = 0; i < 128; ++i)
    in[i] = static_cast<float>(i * 3);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto result =
      emu::launch(*jit->kernel("copy"), {1, 1, 1}, {32, 1, 1}, 0, args.data());
  ASSERT_TRUE(result.ok()) << result.message();
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(out[i], 2 * in[(i + 4) % 128]) << i;
}

TEST(Emulator, BulkCopiesCompleteOnMbarrierPhases) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "bulk-copy.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(512);
  for (int i = 0; i < 512; ++i)
    in[i] = static_cast<float>(i * 3);
  // Three blocks on one worker start with fresh mbarriers; without race
  // detection the phases still order the rounds.
  for (bool races : {true, false}) {
    std::vector<float> out(512, -1);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    emu::LaunchOptions options;
    options.workers = 1;
    options.detectRaces = races;
    auto result = emu::launch(*jit->kernel("rounds"), {3, 1, 1}, {128, 1, 1}, 0,
                              args.data(), options);
    ASSERT_TRUE(result.ok()) << result.message();
    for (int i = 0; i < 512; ++i)
      EXPECT_EQ(out[i], 2 * in[i]) << i;
  }
}

TEST(Emulator, BulkCopyMistakesAreReported) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "bulk-copy-mistakes.mlir");
  ASSERT_TRUE(jit);
  struct Expected {
    const char *kernel;
    ReportKind kind;
    uint32_t thread;
    const char *site; // the op the report is about
    const char *text;
  };
  const Expected cases[] = {
      {"wrong_parity", ReportKind::DivergentBarrier, 0,
       "sympow_tile.mbarrier_wait", "with parity 0 for phase 2 of"},
      {"no_expect_tx", ReportKind::DivergentBarrier, 0,
       "sympow_tile.mbarrier_wait",
       "copies brought 1024 bytes more than expect_tx announced"},
      {"too_much_tx", ReportKind::DivergentBarrier, 0,
       "sympow_tile.mbarrier_wait",
       "1024 transaction bytes announced and not copied"},
      {"early_read", ReportKind::Race, 0, "memref.load",
       "before this thread waited for phase 0"},
      {"no_init_barrier", ReportKind::Race, 1, "sympow_tile.mbarrier_wait",
       "no barrier between them"},
      {"late_init", ReportKind::AsyncOrder, 0, "sympow_tile.bulk_copy",
       "used before mbarrier_init"},
      {"misaligned", ReportKind::Misaligned, 0, "sympow_tile.bulk_copy",
       "bulk copy destination"},
      {"extra_arrival", ReportKind::AsyncOrder, 0,
       "sympow_tile.mbarrier_arrive", "more arrivals on phase 0"},
      {"refill_early", ReportKind::DivergentBarrier, 1,
       "sympow_tile.mbarrier_wait", "having seen only 0 complete"},
  };
  for (const Expected &e : cases) {
    std::vector<float> in(512, 1), out(512);
    KernelArgs args;
    args.buffer(in);
    args.buffer(out);
    auto result = emu::launch(*jit->kernel(e.kernel), {1, 1, 1}, {128, 1, 1}, 0,
                              args.data());
    ASSERT_EQ(result.reports.size(), 1u) << e.kernel << result.message();
    const emu::Report &r = result.reports[0];
    EXPECT_EQ(r.kind, e.kind) << e.kernel;
    EXPECT_EQ(r.kernel, e.kernel);
    EXPECT_EQ(r.thread, (Dim3{e.thread, 0, 0})) << e.kernel;
    EXPECT_NE(r.site.find(e.site), std::string::npos) << e.kernel << r.site;
    EXPECT_NE(r.message.find(e.text), std::string::npos) << r.message;
    if (e.kind == ReportKind::Race) {
      // The tile starts the workgroup memory, the mbarrier is at 1024.
      EXPECT_EQ(r.offset, e.thread ? 1024 : 0) << e.kernel;
      EXPECT_EQ(r.space, 1);
      EXPECT_EQ(r.otherThread, (Dim3{0, 0, 0}));
    }
  }
}

TEST(Emulator, InvalidLaunchIsAReport) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "reduce.mlir");
  ASSERT_TRUE(jit);
  std::vector<float> in(64), out(1);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto result = emu::launch(*jit->kernel("reduce"), {1, 1, 1}, {2048, 1, 1}, 0,
                            args.data());
  const emu::Report *r = find(result, ReportKind::InvalidLaunch);
  ASSERT_TRUE(r);
  EXPECT_NE(r->message.find("more than 1024 threads"), std::string::npos);
}

TEST(Emulator, SharedObjectLoadsWithoutLLVM) {
  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  EmulatorJIT::registerDialects(registry);
  context.appendDialectRegistry(registry);
  std::string path = std::string(SYMPOW_EMULATOR_TEST_DIR) + "/reduce.mlir";
  auto file = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(static_cast<bool>(file));
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      (*file)->getBuffer(), mlir::ParserConfig(&context));
  ASSERT_TRUE(module);
  llvm::SmallString<128> so;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("reduce", "so", so));
  llvm::Error e = emitSharedObject(*module, so);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  std::string error;
  auto loaded = emu::Module::loadSharedObject(so.str().str(), error);
  ASSERT_TRUE(loaded) << error;
  // The same object from its bytes, as a backend's loadModule gets it.
  auto image = llvm::MemoryBuffer::getFile(so);
  llvm::sys::fs::remove(so);
  ASSERT_TRUE(static_cast<bool>(image));
  auto fromImage = emu::Module::loadSharedObjectImage(
      (*image)->getBufferStart(), (*image)->getBufferSize(), error);
  ASSERT_TRUE(fromImage) << error;
  ASSERT_TRUE(fromImage->getKernel("reduce"));
  const emu::Kernel *kernel = loaded->getKernel("kernels::reduce");
  ASSERT_TRUE(kernel);
  std::vector<float> in(128, 2), out(2);
  KernelArgs args;
  args.buffer(in);
  args.buffer(out);
  auto result = emu::launch(*kernel, {2, 1, 1}, {64, 1, 1}, 0, args.data());
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out[0], 128);
  EXPECT_EQ(out[1], 128);
}

TEST(Emulator, KernelLookupByQualifiedName) {
  mlir::MLIRContext context;
  auto jit = compileFile(context, "mma.mlir");
  ASSERT_TRUE(jit);
  EXPECT_TRUE(jit->module().getKernel("kernels::mma_f16"));
  EXPECT_TRUE(jit->module().getKernel("mma_bf16"));
  EXPECT_FALSE(jit->module().getKernel("nope"));
  EXPECT_EQ(jit->module().kernels().size(), 2u);
  EXPECT_EQ(jit->kernel("mma_f16")->numArgs, 15u);
}

} // namespace
