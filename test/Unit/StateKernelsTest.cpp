//===- StateKernelsTest.cpp - Recurrent and chunked kernels compile -------===//
//
// Builds the recurrent and chunked formulations' kernels for a spread of
// variants, checks the IR verifies and has the structure the design needs
// (barriers, the in-place state, rotation only with a schedule), lowers it
// to PTX for sm_80 and sm_90a and runs ptxas: no spills for d <= 64.
// Numerical checks of the kernels run on the emulator (test/EndToEnd).
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/GPU/AssembleKernels.h"
#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/GPU/Ptxas.h"
#include "sympow/Compiler/GPU/RecurrentKernel.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/ChunkStatePass.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace mlir;
using namespace sympow;

namespace {

AttentionKernelSpec spec(int64_t p, int64_t d, int64_t e, ElementKind dtype,
                         GateKind gate, ScheduleKind schedule) {
  AttentionKernelSpec s;
  s.p = p;
  s.d = d;
  s.e = e;
  s.hq = 8;
  s.h = 4;
  s.dtype = dtype;
  s.gate = gate;
  s.schedule = schedule;
  return s;
}

class RecurrentKernel : public ::testing::Test {
protected:
  RecurrentKernel() {
    DialectRegistry registry;
    registerGPUDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A module with the recurrent kernel of `s` in gpu.module @kernels, or
  /// with the chunked kernels when `chunk` is given.
  OwningOpRef<ModuleOp> build(const AttentionKernelSpec &s, int64_t chunk = 0) {
    OpBuilder b(&context);
    OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
    module->getOperation()->setAttr(
        gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
    b.setInsertionPointToEnd(module->getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
    if (chunk)
      buildChunkedKernels(b, gpuModule, s, chunk);
    else
      buildRecurrentKernel(b, gpuModule, s);
    return module;
  }

  MLIRContext context;
};

int64_t countOps(Operation *root, StringRef name) {
  int64_t n = 0;
  root->walk([&](Operation *op) { n += op->getName().getStringRef() == name; });
  return n;
}

TEST_F(RecurrentKernel, VerifiesWithTheExpectedStructure) {
  AttentionKernelSpec s =
      spec(2, 64, 64, ElementKind::BF16, GateKind::Both, ScheduleKind::Learned);
  s.hq = s.h = 8;
  ASSERT_FALSE(verifyRecurrentKernelSpec(s));
  OwningOpRef<ModuleOp> module = build(s);
  ASSERT_TRUE(succeeded(verify(*module)));
  gpu::GPUFuncOp state, output;
  module->walk([&](gpu::GPUFuncOp f) {
    (f.getName() == "recurrent_state" ? state : output) = f;
  });
  ASSERT_TRUE(state && output);
  EXPECT_TRUE(state.isKernel() && output.isKernel());
  // q, k, v, log_g, log_gamma, beta, S, Z, c, num, den, y, arrivals, B, T.
  EXPECT_EQ(state.getNumArguments(), 15u);
  // At T = 1 its last program per state writes y: one arrival (a CAS
  // loop) between fences.
  EXPECT_EQ(countOps(state, "memref.generic_atomic_rmw"), 1);
  EXPECT_EQ(countOps(state, "llvm.fence"), 2);
  // That last program reads the token from its workgroup rings and the
  // final count from its own loop: after the second (acquire) fence it
  // loads only the partial sums num and den (arguments 9, 10), none of q,
  // k, v, log_g, log_gamma, beta or c.
  int64_t fences = 0;
  std::set<unsigned> loadedInTail;
  state.walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    fences += name == "llvm.fence";
    if (fences < 2 ||
        !llvm::is_contained({StringRef("memref.load"), StringRef("vector.load"),
                             StringRef("vector.maskedload"),
                             StringRef("vector.gather")},
                            name))
      return;
    for (Value operand : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && arg.getOwner() == &state.getBody().front() &&
          arg.getArgNumber() < state.getNumArguments())
        loadedInTail.insert(arg.getArgNumber());
  });
  EXPECT_EQ(loadedInTail, (std::set<unsigned>{9, 10}));
  // q, k, v, log_g, log_gamma, beta, y, c, num, den, B, T.
  EXPECT_EQ(output.getNumArguments(), 12u);
  EXPECT_EQ(recurrentThreadsPerBlock(s), 256);
  // One decoding step at B = 1 fills an H100: at least 132 blocks.
  auto launch = tile::getKernelLaunch(state);
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->blocksX, recurrentStatePrograms(s));
  EXPECT_GE(launch->grid(1, 1).x * launch->grid(1, 1).y, 132u);
  // The state moves in 16-byte vectors.
  bool wide = false;
  state.walk([&](vector::LoadOp load) {
    wide |= load.getVectorType().getNumElements() == 4 &&
            load.getVectorType().getElementType().isF32();
  });
  EXPECT_TRUE(wide);
  EXPECT_GE(countOps(state, "gpu.barrier"), 4);
  EXPECT_GE(countOps(state, "math.cos"), 1);
  EXPECT_GE(countOps(output, "math.exp"), 1);

  AttentionKernelSpec plain =
      spec(2, 32, 32, ElementKind::F32, GateKind::None, ScheduleKind::None);
  OwningOpRef<ModuleOp> plainModule = build(plain);
  ASSERT_TRUE(succeeded(verify(*plainModule)));
  EXPECT_EQ(countOps(*plainModule, "math.cos"), 0);
}

TEST_F(RecurrentKernel, RefusesWhatItCannotBuild) {
  AttentionKernelSpec warped =
      spec(2, 64, 64, ElementKind::BF16, GateKind::None, ScheduleKind::Warped);
  warped.length = 128;
  llvm::Error error = verifyRecurrentKernelSpec(warped);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "schedule 'warped' has no recurrent form: only the attention "
            "kernel computes it");

  AttentionKernelSpec odd =
      spec(3, 64, 64, ElementKind::BF16, GateKind::None, ScheduleKind::None);
  error = verifyRecurrentKernelSpec(odd);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("p = 3 is not supported"),
            std::string::npos);
}

struct Variant {
  int64_t p, d, e;
  ElementKind dtype;
  GateKind gate;
  ScheduleKind schedule;
  RotaryLayout layout;
};

/// Lowers `module` for sm_80 and sm_90a, runs ptxas on the PTX and checks
/// every kernel in `kernels` is there without spills.
void expectCompilesWithoutSpills(ModuleOp module, const std::string &variant,
                                 std::vector<std::string> kernels) {
  for (const char *chip : {"sm_80", "sm_90a"}) {
    GpuTargetOptions target;
    target.chip = chip;
    FailureOr<std::map<std::string, std::string>> ptx =
        compileToPtx(module, target);
    ASSERT_TRUE(succeeded(ptx)) << variant << " " << chip;
    const std::string &text = ptx->at("kernels");
    llvm::SmallString<128> cubin;
    llvm::sys::fs::createTemporaryFile("kernels", "cubin", cubin);
    auto usage = runPtxas(text, chip, cubin);
    llvm::sys::fs::remove(cubin);
    ASSERT_TRUE(bool(usage)) << llvm::toString(usage.takeError());
    ASSERT_EQ(usage->size(), kernels.size()) << variant;
    for (const PtxasUsage &u : *usage) {
      EXPECT_NE(std::find(kernels.begin(), kernels.end(), u.kernel),
                kernels.end())
          << u.kernel;
      EXPECT_EQ(u.spillStoreBytes, 0)
          << variant << " " << u.kernel << " " << chip << ": " << u.registers
          << " registers";
      EXPECT_EQ(u.spillLoadBytes, 0) << variant << " " << u.kernel;
    }
  }
}

const Variant kVariants[] = {
    {2, 64, 64, ElementKind::BF16, GateKind::Data, ScheduleKind::Learned,
     RotaryLayout::Interleaved},
    {2, 32, 64, ElementKind::F16, GateKind::Head, ScheduleKind::Uniform,
     RotaryLayout::Half},
    {4, 32, 32, ElementKind::F32, GateKind::Both, ScheduleKind::None,
     RotaryLayout::Interleaved},
    {4, 64, 64, ElementKind::BF16, GateKind::None, ScheduleKind::Learned,
     RotaryLayout::Half},
};

TEST_F(RecurrentKernel, CompilesWithoutSpillsForSmallHeads) {
  for (const Variant &v : kVariants) {
    AttentionKernelSpec s = spec(v.p, v.d, v.e, v.dtype, v.gate, v.schedule);
    s.layout = v.layout;
    ASSERT_FALSE(verifyRecurrentKernelSpec(s));
    OwningOpRef<ModuleOp> module = build(s);
    expectCompilesWithoutSpills(*module, s.variantName(),
                                {"recurrent_state", "recurrent_output"});
  }
}

TEST_F(RecurrentKernel, ChunkedKernelsCompileWithoutSpillsForSmallHeads) {
  for (const Variant &v : kVariants) {
    AttentionKernelSpec s = spec(v.p, v.d, v.e, v.dtype, v.gate, v.schedule);
    s.layout = v.layout;
    ASSERT_FALSE(verifyChunkedKernelSpec(s, 64));
    OwningOpRef<ModuleOp> module = build(s, 64);
    std::vector<std::string> names = {"chunk_output"};
    if (chunkStatePassOf(s, 64)) {
      names.push_back("chunk_state_pass");
      if (s.rotates())
        names.push_back("chunk_keys");
    } else
      names.insert(names.end(), {"chunk_states", "chunk_scan"});
    if (s.rotates())
      names.push_back("chunk_counts");
    expectCompilesWithoutSpills(*module, s.variantName(), names);
  }
}

// A floor ptxas cannot meet without spilling is lowered until the kernel
// fits (AssembleKernels.h): chunk_output held to 8 programs of 128
// threads per SM (64 registers, fewer than its warpgroup MMA's
// accumulators take: ptxas refuses it) is built for fewer, without
// spills, within the registers that floor allows, and the caller's module
// keeps the floor it had. chunk_state_pass, at its own floor, is left as is.
TEST_F(RecurrentKernel, AFloorThatSpillsIsLoweredUntilTheKernelFits) {
  AttentionKernelSpec s =
      spec(2, 64, 64, ElementKind::BF16, GateKind::Data, ScheduleKind::None);
  OwningOpRef<ModuleOp> module = build(s, 512);
  gpu::GPUFuncOp output, pass;
  module->walk([&](gpu::GPUFuncOp f) {
    if (f.getName() == "chunk_output")
      output = f;
    if (f.getName() == "chunk_state_pass")
      pass = f;
  });
  ASSERT_TRUE(output && pass);
  int32_t passFloor = tile::getMinBlocksPerSM(pass);
  tile::setMinBlocksPerSM(output, 8);
  GpuTargetOptions target;
  target.chip = "sm_90a";
  llvm::SmallString<128> cubin;
  llvm::sys::fs::createTemporaryFile("kernels", "cubin", cubin);
  auto assembled = assembleKernels(*module, target, cubin);
  llvm::sys::fs::remove(cubin);
  ASSERT_TRUE(bool(assembled)) << llvm::toString(assembled.takeError());
  ASSERT_EQ(assembled->relaxed.size(), 1u);
  const RelaxedFloor &r = assembled->relaxed.front();
  EXPECT_EQ(r.kernel, "chunk_output");
  EXPECT_EQ(r.requested, 8);
  EXPECT_LT(r.built, 8);
  EXPECT_EQ(assembled->relaxedFrom("chunk_output"), 8);
  EXPECT_EQ(assembled->relaxedFrom("chunk_state_pass"), 0);
  for (const PtxasUsage &u : assembled->usage) {
    EXPECT_EQ(u.spillStoreBytes + u.spillLoadBytes, 0) << u.kernel;
    if (u.kernel == "chunk_output") {
      EXPECT_LE(u.registers * 128 * r.built, 65536) << u.registers;
    }
  }
  std::string floor = ".minnctapersm " + std::to_string(r.built);
  EXPECT_NE(assembled->ptx.find(floor), std::string::npos) << floor;
  EXPECT_EQ(tile::getMinBlocksPerSM(output), 8);
  EXPECT_EQ(tile::getMinBlocksPerSM(pass), passFloor);
}

TEST_F(RecurrentKernel, ChunkedKernelsRefuseWhatTheyCannotBuild) {
  AttentionKernelSpec blend =
      spec(2, 64, 64, ElementKind::BF16, GateKind::None, ScheduleKind::Blend);
  blend.length = 64;
  llvm::Error error = verifyChunkedKernelSpec(blend, 64);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "schedule 'blend' has no chunked form: only the attention kernel "
            "computes it");
  // f32: the scalar kernels hold a whole chunk in workgroup memory.
  AttentionKernelSpec big =
      spec(2, 128, 128, ElementKind::F32, GateKind::None, ScheduleKind::None);
  error = verifyChunkedKernelSpec(big, 64);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error))
                .find("chunks of 64 tokens need 65792 bytes of workgroup "
                      "memory at d = 128, e = 128, more than 48 KiB; use "
                      "chunks of at most 47"),
            std::string::npos);
  EXPECT_FALSE(verifyChunkedKernelSpec(big, 32));
  // 16-bit: the tile kernels, which hold no whole chunk, take chunks of 1
  // to 64 tokens and multiples of 16 up to 4096.
  AttentionKernelSpec tiles = big;
  tiles.dtype = ElementKind::BF16;
  for (int64_t chunk : {1, 5, 48, 64, 96, 4096})
    EXPECT_FALSE(verifyChunkedKernelSpec(tiles, chunk)) << chunk;
  for (int64_t chunk : {0, 100, 4112}) {
    error = verifyChunkedKernelSpec(tiles, chunk);
    ASSERT_TRUE(bool(error)) << chunk;
    EXPECT_EQ(llvm::toString(std::move(error)),
              "chunk size " + std::to_string(chunk) +
                  " is not supported: 16-bit inputs take chunks of 1 to 64 "
                  "tokens or multiples of 16 up to 4096");
  }
}

// ldmatrix reads 8 rows of 16 bytes per matrix; at the strides the tile
// chunk_output stages bf16 rows with, they start in 8 distinct groups of 4
// banks (no conflict), for every width the kernel uses, and waste at most
// one 16-byte piece per row.
TEST(ChunkOutputTile, StridesKeepLdmatrixRowsInDistinctBanks) {
  for (int64_t columns = 8; columns <= 264; columns += 8) {
    int64_t stride = ldmatrixRowStride(columns);
    EXPECT_GE(stride, columns);
    EXPECT_LE(stride, columns + 8);
    std::vector<int64_t> groups;
    for (int64_t row = 0; row < 8; ++row)
      groups.push_back(row * stride * 2 / 16 % 8); // 16-byte bank group
    std::sort(groups.begin(), groups.end());
    EXPECT_EQ(std::unique(groups.begin(), groups.end()), groups.end())
        << columns << " columns at a stride of " << stride;
  }
  ChunkOutputTile split;
  EXPECT_EQ(ChunkOutputTile::keyStride(64), 72);
  EXPECT_EQ(ChunkOutputTile::valueStride(64), 72); // [V | 1] in 9 pieces
  EXPECT_EQ(split.phiStride(), 40);
}

// chunk_output's state steps for the warpgroup MMA: any 8 adjacent runs of
// the chunk state (row k, piece c of P, run j = P k + c), copied by a
// quarter warp, land in 8 distinct 16-byte slots of the buffer (piece c's
// rows FP slots apart), wherever P is odd; the buffer holds the padding.
TEST(ChunkOutputTile, StateCopiesTakeDistinctSlots) {
  for (int64_t e : {16, 32, 48, 64, 96, 128}) {
    std::optional<ChunkOutputTile> split =
        chunkOutputTile(512, 2, 64, e, false, false, true);
    ASSERT_TRUE(split.has_value());
    ASSERT_TRUE(split->warpgroupState(e)) << "e = " << e;
    int64_t P = ChunkOutputTile::valueColumns(e) / 8,
            F = split->stateRowsPerStep, FP = split->statePieceRows(e);
    ASSERT_EQ(P % 2, 1) << "e = " << e;
    EXPECT_GT(FP, F);
    EXPECT_LT(FP, F + 8);
    EXPECT_EQ(split->stateBufferElements(e), 8 * P * FP);
    for (int64_t first = 0; first + 8 <= F * P; ++first) {
      std::vector<int64_t> slots;
      for (int64_t j = first; j < first + 8; ++j)
        slots.push_back((j % P * FP + j / P) % 8);
      std::sort(slots.begin(), slots.end());
      EXPECT_EQ(std::unique(slots.begin(), slots.end()), slots.end())
          << "e = " << e << ", runs from " << first;
    }
  }
}

// Unrotated bf16 layers take their state steps by bulk copies, the chunk
// states in 8-column pieces: a step's rows of one piece are then one run
// (the rows f .. f + n - 1 at n adjacent 16-byte slots), the pieces dim 8
// elements apart, the halves' pieces inside the slot. A split q (rotated,
// f16) keeps the copies by thread and the rows one after the other.
TEST(ChunkOutputTile, BulkCopiesReadStatesInPieces) {
  for (int64_t e : {32, 64, 128}) {
    std::optional<ChunkOutputTile> bulk =
        chunkOutputTile(512, 2, 64, e, false, false, true);
    ASSERT_TRUE(bulk.has_value());
    EXPECT_TRUE(bulk->bulkState(e)) << "e = " << e;
    int64_t dim = 2080, NV = ChunkOutputTile::valueColumns(e);
    for (int64_t c = 0; c < NV; c += 8)
      for (int64_t f = 0; f + 1 < dim; f += 97) {
        int64_t at = ChunkOutputTile::stateOffset(dim, e, true, f, c);
        EXPECT_EQ(ChunkOutputTile::stateOffset(dim, e, true, f + 1, c), at + 8);
        EXPECT_EQ(ChunkOutputTile::stateOffset(dim, e, true, f, c + 7), at + 7);
        EXPECT_EQ(at / ChunkOutputTile::statePieceElements(dim), c / 8);
      }
    EXPECT_EQ(ChunkOutputTile::stateOffset(dim, e, true, dim - 1, NV - 1) + 1,
              ChunkOutputTile::stateHalfElements(dim, e));
    // Row by row otherwise.
    EXPECT_EQ(ChunkOutputTile::stateOffset(dim, e, false, 3, 9), 3 * NV + 9);
    for (bool f16 : {false, true})
      for (bool rotates : {false, true}) {
        if (!f16 && !rotates)
          continue;
        std::optional<ChunkOutputTile> split =
            chunkOutputTile(512, 2, 64, e, f16, rotates, true);
        ASSERT_TRUE(split.has_value());
        EXPECT_TRUE(split->warpgroupState(e));
        EXPECT_FALSE(split->bulkState(e))
            << "e = " << e << ", f16 " << f16 << ", rotated " << rotates;
      }
  }
  // Short chunks (programs of 32 rows) copy by thread.
  std::optional<ChunkOutputTile> short32 =
      chunkOutputTile(32, 2, 64, 64, false, false, true);
  ASSERT_TRUE(short32.has_value());
  EXPECT_FALSE(short32->bulkState(64));
}

// chunk_state_pass decays once a chunk where it has a producer of its own
// at p = 2 and a chunk takes two steps or more; else every step.
TEST(ChunkStatePass, DecaysOnceAChunkWhereChunksTakeTwoSteps) {
  auto once = [](int64_t p, int64_t d, int64_t chunk, bool rotated) {
    std::optional<ChunkStatePass> s =
        chunkStatePass(p, d, 64, chunk, 2, false, rotated);
    return s && s->chunkDecay;
  };
  EXPECT_TRUE(once(2, 64, 512, false));
  EXPECT_TRUE(once(2, 64, 128, false));
  EXPECT_FALSE(once(2, 64, 64, false)); // one step of 64
  EXPECT_TRUE(once(2, 64, 64, true));   // two steps of 32
  EXPECT_FALSE(once(4, 32, 512, false));
  // In turn (f16 values beside rotated keys): every step.
  std::optional<ChunkStatePass> inTurn =
      chunkStatePass(2, 32, 64, 512, 2, true, true);
  ASSERT_TRUE(inTurn.has_value());
  EXPECT_FALSE(inTurn->specialized || inTurn->chunkDecay);
  // The kept state takes the exchange's second half: no more memory.
  ChunkStatePass a = *chunkStatePass(2, 64, 64, 512, 2, false, false);
  ChunkStatePass b = a;
  b.chunkDecay = false;
  EXPECT_EQ(a.sharedBytes(64, 64, false, false),
            b.sharedBytes(64, 64, false, false));
}

// The consumers multiply keys as bf16 pairs only where a product of two
// keys splits exactly into bf16 hi + lo: bf16 keys as they come, p = 2.
TEST(ChunkStatePass, PacksKeyProductsOfUnrotatedBf16AtPowerTwo) {
  EXPECT_TRUE(ChunkStatePass::packedKeyProducts(2, false, false));
  EXPECT_FALSE(ChunkStatePass::packedKeyProducts(2, true, false)); // f16
  EXPECT_FALSE(ChunkStatePass::packedKeyProducts(2, false, true)); // rotated
  EXPECT_FALSE(ChunkStatePass::packedKeyProducts(4, false, false));
}

// chunk_state_pass's staged arrays are the warpgroup MMA's canonical
// layouts, padded so that its staging does not conflict: the 8 threads of
// a quarter warp storing one token's 8 blocks of values hit 8 different
// 16-byte slots, and the four threads of a Phi^T row read their pairs of
// tokens' keys (rows of the staged keys) from different banks.
TEST(ChunkStatePass, StagedLayoutsAvoidBankConflicts) {
  ChunkStatePass pass;
  for (int64_t tokens : {16, 32, 64}) {
    pass.tokensPerStep = tokens;
    EXPECT_EQ(pass.valueBlockBytes() % 16, 0);
    std::vector<int64_t> slots;
    for (int64_t block = 0; block < 8; ++block)
      slots.push_back(block * pass.valueBlockBytes() / 16 % 8);
    std::sort(slots.begin(), slots.end());
    EXPECT_EQ(std::unique(slots.begin(), slots.end()), slots.end())
        << tokens << " tokens a step";
    // Core matrices of 8 rows x 16 bytes along the step's tokens.
    EXPECT_EQ(pass.phiGroupBytes(), tokens / 8 * 128);
  }
  for (int64_t d = 16; d <= 256; d += 16) {
    int64_t stride = ChunkStatePass::keyPairStride(d);
    EXPECT_GE(stride, 2 * d);
    EXPECT_GE(stride, 2 * d + 4) << "room for keyRowShift";
    EXPECT_LT(stride, 2 * d + 36);
    EXPECT_EQ(stride % 4, 0) << "16-byte staging stores, d = " << d;
    // A half warp's 8-byte reads: 4 rows of Phi^T (adjacent dims) by 4
    // threads (adjacent pairs of tokens) take 16 different 8-byte slots of
    // the 32 banks.
    for (int64_t dim = 0; dim + 4 <= d; dim += 4) {
      std::vector<int64_t> banks;
      for (int64_t pair = 0; pair < 4; ++pair)
        for (int64_t row = 0; row < 4; ++row)
          banks.push_back((pair * stride + 2 * (dim + row)) / 2 % 16);
      std::sort(banks.begin(), banks.end());
      EXPECT_EQ(std::unique(banks.begin(), banks.end()), banks.end())
          << "d = " << d << ", dims from " << dim;
    }
  }
  // bf16 keys staged as they come: a dim's pair of tokens is one 4-byte
  // word; a warp's reads (8 rows' adjacent dims by 4 adjacent pairs) take
  // its 32 banks, and the rows stay 16-byte aligned.
  for (int64_t d = 16; d <= 256; d += 16) {
    int64_t words = ChunkStatePass::keyRowElements(d, /*bf16=*/true) / 2;
    EXPECT_GE(words, d);
    EXPECT_EQ(words % 4, 0) << "d = " << d;
    for (int64_t dim = 0; dim + 8 <= d; dim += 8) {
      std::vector<int64_t> banks;
      for (int64_t pair = 0; pair < 4; ++pair)
        for (int64_t row = 0; row < 8; ++row)
          banks.push_back((pair * words + dim + row) % 32);
      std::sort(banks.begin(), banks.end());
      EXPECT_EQ(std::unique(banks.begin(), banks.end()), banks.end())
          << "d = " << d << ", dims from " << dim;
    }
  }
  EXPECT_EQ(ChunkStatePass::keyRowElements(64, /*bf16=*/false),
            ChunkStatePass::keyPairStride(64));
  // The producer's key runs (8 words of one pair row, as two 16-byte
  // stores) go down the rows: a quarter warp's stores, 8 adjacent rows
  // from a multiple of 8 at one column, take the 8 16-byte slots of the
  // banks once each with the rows shifted (keyRowShift); the consumers'
  // reads above see 4 rows from a multiple of 4, which share one shift.
  for (bool bf16 : {true, false})
    for (int64_t d = 16; d <= 256; d += 16) {
      int64_t words = ChunkStatePass::keyRowElements(d, bf16) / (bf16 ? 2 : 1);
      int64_t shiftWords =
          ChunkStatePass::keyRowShift(4, bf16) / (bf16 ? 2 : 1);
      EXPECT_EQ(shiftWords, 4);
      EXPECT_GE(words, (bf16 ? d : 2 * d) + shiftWords) << "d = " << d;
      for (int64_t first = 0; first < 32; first += 8)
        for (int64_t store : {0, 1}) {
          std::vector<int64_t> slots;
          for (int64_t row = first; row < first + 8; ++row) {
            int64_t shift =
                ChunkStatePass::keyRowShift(row, bf16) / (bf16 ? 2 : 1);
            slots.push_back((row * words + shift + 4 * store) / 4 % 8);
            EXPECT_EQ(ChunkStatePass::keyRowShift(row, bf16),
                      ChunkStatePass::keyRowShift(row / 4 * 4, bf16));
          }
          std::sort(slots.begin(), slots.end());
          EXPECT_EQ(std::unique(slots.begin(), slots.end()), slots.end())
              << (bf16 ? "bf16" : "f32") << " keys, d = " << d << ", rows from "
              << first;
        }
    }
  EXPECT_TRUE(ChunkStatePass::bf16Keys(/*f16=*/false, /*rotated=*/false));
  EXPECT_FALSE(ChunkStatePass::bf16Keys(/*f16=*/true, /*rotated=*/false));
  EXPECT_FALSE(ChunkStatePass::bf16Keys(/*f16=*/false, /*rotated=*/true));
  // Two programs a SM up to e = 64 with a producer warpgroup (24 warps),
  // and up to e = 128 with the roles in turn (16 warps); one where the
  // accumulators grow beyond.
  ChunkStatePass inTurn = pass;
  inTurn.specialized = false;
  EXPECT_EQ(pass.minProgramsPerSM(64), 2);
  EXPECT_EQ(pass.minProgramsPerSM(128), 1);
  EXPECT_EQ(inTurn.minProgramsPerSM(128), 2);
  EXPECT_EQ(inTurn.minProgramsPerSM(256), 1);
  // The producer where its loads a step ahead fit 32 registers: 16-bit keys
  // at d = e = 64 in steps of 64 tokens, rotated f32 ones (48 at 64 tokens)
  // in steps of 32; not f16 values beside rotated keys (they spilled), nor
  // steps longer than a chunk. e > 64 splits its columns over programs.
  auto ahead = [](int64_t d, int64_t e, bool f16, bool rotated,
                  int64_t chunk = 512) -> int64_t {
    std::optional<ChunkStatePass> s =
        chunkStatePass(2, d, e, chunk, 2, f16, rotated);
    return s && s->specialized ? s->tokensPerStep : 0;
  };
  EXPECT_EQ(ahead(64, 64, false, false), 64);
  EXPECT_EQ(ahead(64, 64, true, false), 64);
  EXPECT_EQ(ahead(64, 64, false, true), 32);
  EXPECT_EQ(ahead(64, 64, false, false, 32), 32);
  EXPECT_EQ(ahead(64, 64, false, false, 16), 0);
  EXPECT_EQ(ahead(32, 64, true, true), 0);
  EXPECT_EQ(ahead(64, 128, false, false), 64);
  EXPECT_EQ(chunkStatePass(2, 64, 64, 512, 2, false, false)->threads(), 384);
  EXPECT_EQ(chunkStatePass(2, 64, 128, 512, 2, false, false)->threads(), 384);
}

// Value columns wider than 64 go to programs of whole 8-column pieces, the
// fewest that fit (none where no such split exists: e = 176 runs in turn);
// at d = 128 the bf16 values are copied so that steps of 64 tokens keep the
// producer's loads at 32 registers (keys alone), f16 ones (split, so held)
// take steps of 32.
TEST(ChunkStatePass, SplitsWideValueColumnsOverPrograms) {
  EXPECT_EQ(ChunkStatePass::columnBlocksOf(64), 1);
  EXPECT_EQ(ChunkStatePass::columnBlocksOf(96), 2);
  EXPECT_EQ(ChunkStatePass::columnBlocksOf(128), 2);
  EXPECT_EQ(ChunkStatePass::columnBlocksOf(160), 4);
  EXPECT_EQ(ChunkStatePass::columnBlocksOf(176), 0);
  ChunkStatePass wide = *chunkStatePass(2, 128, 128, 1024, 2, false, false);
  EXPECT_TRUE(wide.specialized);
  EXPECT_EQ(wide.columnBlocks, 2);
  EXPECT_EQ(wide.programColumns(128), 64);
  EXPECT_EQ(wide.gridPrograms(), 2 * 129);
  EXPECT_EQ(wide.valueColumns(128), 72);
  EXPECT_EQ(wide.tokensPerStep, 64);
  EXPECT_TRUE(wide.copiedValues);
  EXPECT_EQ(wide.valueBuffers(), 3);
  EXPECT_EQ(wide.loadRegisters(128, 128, false), 32);
  EXPECT_LE(wide.sharedBytes(128, 128, false, false),
            kSharedBytesForTwoH100Blocks);
  ChunkStatePass f16 = *chunkStatePass(2, 128, 128, 1024, 2, true, false);
  EXPECT_EQ(f16.tokensPerStep, 32);
  EXPECT_FALSE(f16.copiedValues);
  EXPECT_EQ(f16.valueBuffers(), 2);
  // d = 64 keeps its values in registers: nothing changes there.
  ChunkStatePass narrow = *chunkStatePass(2, 64, 64, 1024, 2, false, false);
  EXPECT_EQ(narrow.columnBlocks, 1);
  EXPECT_FALSE(narrow.copiedValues);
  std::optional<ChunkStatePass> odd =
      chunkStatePass(2, 16, 176, 1024, 2, false, false);
  ASSERT_TRUE(odd.has_value());
  EXPECT_FALSE(odd->specialized);
  EXPECT_EQ(odd->columnBlocks, 1);
}

// Where the state steps come by bulk copies (unrotated bf16, p = 2) and a
// chunk is whole programs of 128 rows, a program is two warpgroups stacked
// (each state step and key step staged once for 128 rows): 256 threads,
// two programs per SM at 128 registers (as four of 128 threads), its state
// steps two buffers of up to 64 rows (one step an a where d <= 64) in
// dynamic workgroup memory that two programs fit on every target; rows of
// 136 columns (d = e = 128) one program per SM (its registers), steps of 64
// rows in up to a block's most dynamic workgroup memory. Split q or values
// and short chunks keep 64.
TEST(ChunkOutputTile, BulkStateStepsServeTwoWarpgroups) {
  for (int64_t chunk : {128, 256, 512, 1024})
    for (int64_t d : {16, 32, 64}) {
      std::optional<ChunkOutputTile> paired =
          chunkOutputTile(chunk, 2, d, 64, false, false, true);
      ASSERT_TRUE(paired.has_value());
      EXPECT_TRUE(paired->pairedWarpgroups()) << chunk << ", d = " << d;
      EXPECT_EQ(paired->rowSpan, 128);
      EXPECT_EQ(paired->threads(), 256);
      EXPECT_TRUE(paired->bulkState(64));
      EXPECT_EQ(paired->minProgramsPerSM(64), 2);
      EXPECT_EQ(paired->registerCap(64), 128);
      EXPECT_EQ(paired->sharedBudget(64), kSharedBytesForTwoBlocks);
      EXPECT_LE(paired->sharedBytes(d, 64), paired->sharedBudget(64));
      EXPECT_EQ(paired->stateBuffers, 2);
      EXPECT_EQ(paired->stateRowsPerStep, d) << chunk << ", d = " << d;
      // d = 48 keeps steps of 32 rows (48 spilled on sm_80).
      EXPECT_EQ(chunkOutputTile(chunk, 2, 48, 48, false, false, true)
                    ->stateRowsPerStep,
                32);
      // Their key steps are warpgroup MMAs, 64 keys a step where the chunk
      // holds several programs (32 in a whole-chunk program's).
      EXPECT_TRUE(paired->warpgroupKeys);
      EXPECT_EQ(paired->keysPerStep, chunk > 128 ? 64 : 32) << chunk;
    }
  for (bool f16 : {false, true})
    for (bool rotates : {false, true}) {
      if (!f16 && !rotates)
        continue;
      std::optional<ChunkOutputTile> split =
          chunkOutputTile(512, 2, 64, 64, f16, rotates, true);
      ASSERT_TRUE(split.has_value());
      EXPECT_EQ(split->rowsPerProgram, 64) << f16 << rotates;
      // Rotated bf16 takes warpgroup key steps of 32 (split scores, three
      // products); f16 values (split too) keep mma.sync.
      EXPECT_EQ(split->warpgroupKeys, !f16) << f16 << rotates;
      EXPECT_EQ(split->keysPerStep, 32);
    }
  // d = 48: a step's copies are not whole groups of 8 rows a pass.
  EXPECT_EQ(chunkOutputTile(512, 2, 48, 48, false, false, true)->keysPerStep,
            32);
  EXPECT_EQ(chunkOutputTile(64, 2, 64, 64, false, false, true)->rowsPerProgram,
            64);
  EXPECT_EQ(chunkOutputTile(192, 2, 64, 64, false, false, true)->rowsPerProgram,
            64);
  std::optional<ChunkOutputTile> wide =
      chunkOutputTile(512, 2, 128, 128, false, false, true);
  ASSERT_TRUE(wide.has_value());
  EXPECT_TRUE(wide->pairedWarpgroups());
  EXPECT_EQ(wide->minProgramsPerSM(128), 1);
  EXPECT_GT(wide->sharedBytes(128, 128), kStaticSharedBytes);
  EXPECT_LE(wide->sharedBytes(128, 128), wide->sharedBudget(128));
  // Rows of 136 columns: 32 keys a step (a thread's scores beside 68
  // accumulators).
  EXPECT_TRUE(wide->warpgroupKeys);
  EXPECT_EQ(wide->keysPerStep, 32);
  EXPECT_EQ(wide->stateRowsPerStep, 64);
  EXPECT_EQ(wide->sharedBudget(128), kMaxSharedBytesPerBlock);
}

// The factored state part (p = 2) double-buffers its state rows wherever
// two buffers fit in static workgroup memory (every d up to 128 at e = d),
// and keeps the factored form with one buffer where they do not (the phi(Q)
// path it once fell back to at d = 128 measured 1.7x slower on the H100);
// staged rows are as dense as the chunk state's, which the cp.async copies
// rely on.
TEST(ChunkOutputTile, FactoredStateDoubleBuffersWhereItFits) {
  for (int64_t d : {16, 32, 48, 64, 128}) {
    for (bool rotates : {false, true}) {
      std::optional<ChunkOutputTile> split =
          chunkOutputTile(512, 2, d, d, /*f16=*/false, rotates,
                          /*statePass=*/true);
      ASSERT_TRUE(split.has_value()) << "d = " << d;
      EXPECT_TRUE(split->factorsState) << "d = " << d;
      EXPECT_LE(split->sharedBytes(d, d), split->sharedBudget(d));
      EXPECT_EQ(ChunkOutputTile::valueStride(d),
                ChunkOutputTile::valueColumns(d));
      EXPECT_EQ(split->stateBuffers, 2) << "d = " << d;
    }
  }
  // d = e = 128, one program per SM by its registers: two buffers of 64
  // rows in dynamic shared memory (16 fit the static 48 KiB; 32 what two
  // programs fit), warpgroup MMAs of N = 136. Programs of 64 rows at e = 64
  // (several an SM) keep the static limit.
  std::optional<ChunkOutputTile> wide =
      chunkOutputTile(1024, 2, 128, 128, false, false, true);
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->stateBuffers, 2);
  EXPECT_EQ(wide->stateRowsPerStep, 64);
  EXPECT_GT(wide->sharedBytes(128, 128), kSharedBytesForTwoBlocks);
  EXPECT_LE(wide->sharedBytes(128, 128), kMaxSharedBytesPerBlock);
  EXPECT_TRUE(wide->warpgroupState(128));
  std::optional<ChunkOutputTile> single =
      chunkOutputTile(192, 2, 64, 64, false, false, true);
  ASSERT_TRUE(single.has_value());
  EXPECT_EQ(single->rowsPerProgram, 64);
  EXPECT_EQ(single->sharedBudget(64), kStaticSharedBytes);
  // Rows of e + 8 = 264 columns are past one MMA's N (256) and a thread's
  // accumulators: four programs along y take 64 value columns each, with
  // the warpgroup MMAs, registers and arrays of e = 64. e = 192: three of
  // 64; e = 160: four of 40; e = 176, which no block of 32 to 64 divides
  // in 8-column pieces, two of 88; e = 128 (136 columns) one program.
  std::optional<ChunkOutputTile> wider =
      chunkOutputTile(256, 2, 64, 256, false, false, true);
  ASSERT_TRUE(wider.has_value());
  EXPECT_EQ(wider->columnBlocks, 4);
  EXPECT_EQ(wider->programColumns(256), 64);
  EXPECT_EQ(wider->stateBuffers, 2);
  EXPECT_TRUE(wider->warpgroupState(256));
  EXPECT_TRUE(wider->pairedWarpgroups());
  EXPECT_EQ(wider->minProgramsPerSM(256), 2);
  EXPECT_EQ(wider->registerCap(256), 128);
  // Its key steps take 32 keys (64 spilled on sm_90a), so its arrays are
  // at most e = 64's.
  EXPECT_EQ(wider->keysPerStep, 32);
  EXPECT_LE(
      wider->sharedBytes(64, 256),
      chunkOutputTile(256, 2, 64, 64, false, false, true)->sharedBytes(64, 64));
  EXPECT_EQ(chunkOutputTile(256, 2, 64, 192, false, false, true)->columnBlocks,
            3);
  std::optional<ChunkOutputTile> narrow =
      chunkOutputTile(256, 2, 64, 160, false, false, true);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_EQ(narrow->columnBlocks, 4);
  EXPECT_EQ(narrow->programColumns(160), 40);
  EXPECT_TRUE(narrow->warpgroupState(160));
  std::optional<ChunkOutputTile> two =
      chunkOutputTile(256, 2, 64, 176, false, false, true);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->columnBlocks, 2);
  EXPECT_EQ(two->programColumns(176), 88);
  EXPECT_EQ(chunkOutputTile(256, 2, 64, 128, false, false, true)->columnBlocks,
            1);
  // Other powers build phi(Q): one buffer.
  std::optional<ChunkOutputTile> p4 =
      chunkOutputTile(512, 4, 32, 32, false, false, true);
  ASSERT_TRUE(p4.has_value());
  EXPECT_FALSE(p4->factorsState);
  EXPECT_EQ(p4->stateBuffers, 1);
}

} // namespace
