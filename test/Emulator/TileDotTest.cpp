//===- TileDotTest.cpp - Tile-IR dots on the emulator vs a CPU product ----===//
//
// The kernels of test/Tile/dot-emulate.mlir, lowered by
// --sympow-convert-tile-to-gpu (dot -> mma.sync, matrix loads -> ldmatrix
// or per-element accesses) and run with every check on. Inputs are small
// integers (and, for the split dot, integers of 16 significant bits), so
// every product and partial sum is exact in f32 and the results must equal
// the CPU product bit for bit, whatever order the additions take.
//
//===----------------------------------------------------------------------===//

#include "EmulatorTestSupport.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Emulator/Half.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

using namespace sympow;
using test::KernelArgs;

namespace {

/// The kernels of dot-emulate.mlir, lowered and compiled.
std::unique_ptr<EmulatorJIT> compileDotKernels(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  EmulatorJIT::registerDialects(registry);
  registry.insert<tile::TileDialect>();
  context.appendDialectRegistry(registry);
  std::string path =
      std::string(SYMPOW_EMULATOR_TEST_DIR) + "/../Tile/dot-emulate.mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module) {
    ADD_FAILURE() << "cannot parse " << path;
    return nullptr;
  }
  mlir::PassManager pm(&context);
  pm.addPass(createSympowConvertTileToGPU());
  if (failed(pm.run(*module))) {
    ADD_FAILURE() << "lowering failed";
    return nullptr;
  }
  auto jit = EmulatorJIT::compile(*module);
  if (!jit) {
    ADD_FAILURE() << llvm::toString(jit.takeError());
    return nullptr;
  }
  return std::move(*jit);
}

/// `n` random integers in [-range, range] as bf16 (exact) and as floats.
std::vector<uint16_t> randomBf16(std::mt19937 &rng, size_t n, int range,
                                 std::vector<float> &values) {
  std::uniform_int_distribution<int> dist(-range, range);
  std::vector<uint16_t> bits(n);
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = static_cast<float>(dist(rng));
    bits[i] = emu::floatToBf16(values[i]);
    EXPECT_EQ(emu::bf16ToFloat(bits[i]), values[i]);
  }
  return bits;
}

void expectClean(const emu::LaunchResult &result) {
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_TRUE(result.reports.empty()) << result.message();
}

TEST(TileDot, LdmatrixOperandsAndCarriedAccumulator) {
  mlir::MLIRContext context;
  auto jit = compileDotKernels(context);
  ASSERT_TRUE(jit);
  // out (64 x 32) = c + a (64 x 64) b (64 x 32), all row-major.
  std::mt19937 rng(12);
  std::vector<float> a, b;
  std::vector<uint16_t> aBits = randomBf16(rng, 64 * 64, 16, a);
  std::vector<uint16_t> bBits = randomBf16(rng, 64 * 32, 16, b);
  std::vector<float> c(64 * 32), out(64 * 32, -1);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  for (float &x : c)
    x = static_cast<float>(dist(rng));
  KernelArgs args;
  args.buffer(aBits);
  args.buffer(bBits);
  args.buffer(c);
  args.buffer(out);
  expectClean(emu::launch(*jit->kernel("matmul"), {1, 1, 1}, {128, 1, 1}, 0,
                          args.data()));
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 32; ++n) {
      double expected = c[m * 32 + n];
      for (int k = 0; k < 64; ++k)
        expected += double(a[m * 64 + k]) * b[k * 32 + n];
      ASSERT_EQ(out[m * 32 + n], expected) << "(" << m << ", " << n << ")";
    }
}

TEST(TileDot, TransposedOperandsInWorkgroupMemory) {
  mlir::MLIRContext context;
  auto jit = compileDotKernels(context);
  ASSERT_TRUE(jit);
  // out (64 x 32) = s a b from at = aᵀ (32 x 64) and bt = bᵀ (32 x 32),
  // s = 3 (a splat scaling the accumulator).
  std::mt19937 rng(34);
  std::vector<float> at, bt;
  std::vector<uint16_t> atBits = randomBf16(rng, 32 * 64, 64, at);
  std::vector<uint16_t> btBits = randomBf16(rng, 32 * 32, 64, bt);
  std::vector<float> out(64 * 32, -1);
  KernelArgs args;
  args.buffer(atBits);
  args.buffer(btBits);
  args.buffer(out);
  args.scalar(3);
  expectClean(emu::launch(*jit->kernel("matmul_t"), {1, 1, 1}, {128, 1, 1}, 0,
                          args.data()));
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 32; ++n) {
      double expected = 0;
      for (int k = 0; k < 32; ++k)
        expected += double(at[k * 64 + m]) * bt[n * 32 + k];
      ASSERT_EQ(out[m * 32 + n], 3 * expected) << "(" << m << ", " << n << ")";
    }
}

TEST(TileDot, SplitPrecisionIsExactOnSixteenBitOperands) {
  mlir::MLIRContext context;
  auto jit = compileDotKernels(context);
  ASSERT_TRUE(jit);
  // a (50 x 32): integers of up to 16 bits, hi + lo exactly, so a bf16 dot
  // of a would be wrong (bf16 keeps 8 bits) and the split dot is exact;
  // b (32 x 32) small integers (lo = 0). 50 rows: the tile's last 14 are
  // masked on load and store (out has 50 rows; the emulator reports any
  // access past it).
  std::mt19937 rng(56);
  std::uniform_int_distribution<int> wide(-32767, 32767), narrow(-8, 8);
  const int m = 50;
  std::vector<float> a(m * 32), b(32 * 32), out(m * 32, -1);
  for (float &x : a)
    x = static_cast<float>(wide(rng));
  for (float &x : b)
    x = static_cast<float>(narrow(rng));
  bool bf16WouldDiffer = false;
  KernelArgs args;
  args.buffer(a);
  args.buffer(b);
  args.buffer(out);
  args.scalar(m);
  expectClean(emu::launch(*jit->kernel("split"), {1, 1, 1}, {128, 1, 1}, 0,
                          args.data()));
  for (int i = 0; i < m; ++i)
    for (int n = 0; n < 32; ++n) {
      double expected = 0, rounded = 0;
      for (int k = 0; k < 32; ++k) {
        expected += double(a[i * 32 + k]) * b[k * 32 + n];
        rounded += double(emu::bf16ToFloat(emu::floatToBf16(a[i * 32 + k]))) *
                   b[k * 32 + n];
      }
      bf16WouldDiffer |= rounded != expected;
      ASSERT_EQ(out[i * 32 + n], expected) << "(" << i << ", " << n << ")";
    }
  EXPECT_TRUE(bf16WouldDiffer);
}

} // namespace
