//===- KernelNumericsTest.cpp - Generated kernels against the reference ---===//
//
// Builds the attention and recurrent kernels of a variant, runs them on the
// CPU emulator with CUDA semantics (JIT, every thread a fiber, races and
// out-of-bounds accesses reported) and compares y, and the final state of
// the recurrent kernel, with the f64 reference on the same (rounded) inputs
// within SPEC's accuracy: 1e-4 * max|y_ref| for f32 inputs, 1e-2 for
// bf16/f16. Inputs follow SPEC's accuracy setting: normal q, k, v and gates
// in (0.9, 1).
//
//===----------------------------------------------------------------------===//

#include "KernelRunner.h"

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Compiler/GPU/RecurrentKernel.h"
#include "sympow/Support/ChunkStatePass.h"

#include <gtest/gtest.h>

using namespace sympow;
using namespace sympow::e2e;

namespace {

struct Case {
  const char *name;
  int64_t p, d, e, hq, h;
  ElementKind dtype;
  GateKind gate;
  ScheduleKind schedule;
  RotaryLayout layout = RotaryLayout::Interleaved;
  int64_t rotaryDims = 0; // 0: d
  int64_t B = 2, T = 7;
  AttentionPath path = AttentionPath::Auto;
  int64_t length = 0; // warped/blend
};

// gtest prints a failing case by its name.
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

AttentionKernelSpec specOf(const Case &c) {
  AttentionKernelSpec s;
  s.p = c.p;
  s.d = c.d;
  s.e = c.e;
  s.hq = c.hq;
  s.h = c.h;
  s.dtype = c.dtype;
  s.gate = c.gate;
  s.schedule = c.schedule;
  s.layout = c.layout;
  s.rotaryDims = c.rotaryDims;
  s.rotaryBase = 500.0;
  s.rateScale = 1.5;
  s.path = c.path;
  s.length = c.length;
  return s;
}

class RecurrentNumerics : public ::testing::TestWithParam<Case> {};

TEST_P(RecurrentNumerics, MatchesTheReference) {
  const Case &c = GetParam();
  AttentionKernelSpec spec = specOf(c);
  ASSERT_FALSE(verifyRecurrentKernelSpec(spec));
  LayerCase layer = randomLayer(spec, c.B, c.T, /*seed=*/c.p * 131 + c.d,
                                /*withState=*/true);
  KernelResult got = runLayer(spec, runtime::Formulation::Recurrent, 0, layer);
  ASSERT_TRUE(got.error.empty()) << got.error;
  ReferenceResult want = runReference(spec, layer);
  ASSERT_TRUE(want.error.empty()) << want.error;
  expectMatches(got, want, c.dtype, /*state=*/true, c.name);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RecurrentNumerics,
    ::testing::Values(
        Case{"p2_f32_both_learned", 2, 16, 16, 4, 2, ElementKind::F32,
             GateKind::Both, ScheduleKind::Learned},
        Case{"p2_bf16_data_uniform_half", 2, 16, 32, 2, 2, ElementKind::BF16,
             GateKind::Data, ScheduleKind::Uniform, RotaryLayout::Half},
        Case{"p2_f16_head_none_T1", 2, 32, 16, 4, 1, ElementKind::F16,
             GateKind::Head, ScheduleKind::None, RotaryLayout::Interleaved, 0,
             3, 1},
        Case{"p4_f32_data_learned_partial", 4, 16, 16, 2, 1, ElementKind::F32,
             GateKind::Data, ScheduleKind::Learned, RotaryLayout::Interleaved,
             8, 1, 4}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

/// The chunked kernels over T in {1, C - 1, C, C + 1, 3C + 5}, with an
/// initial state and the final state checked.
struct ChunkedCase {
  Case layer;
  int64_t chunk;
};

void PrintTo(const ChunkedCase &c, std::ostream *os) { *os << c.layer.name; }

class ChunkedNumerics : public ::testing::TestWithParam<ChunkedCase> {};

/// The chunked layer of `c` in chunks of C on B sequences of T random
/// tokens with an initial state, against the reference.
void expectChunkedMatches(const Case &c, int64_t C, int64_t B, int64_t T,
                          unsigned seed) {
  AttentionKernelSpec spec = specOf(c);
  ASSERT_FALSE(verifyChunkedKernelSpec(spec, C));
  LayerCase layer = randomLayer(spec, B, T, seed, /*withState=*/true);
  KernelResult got = runLayer(spec, runtime::Formulation::Chunked, C, layer);
  ASSERT_TRUE(got.error.empty()) << got.error;
  ReferenceResult want = runReference(spec, layer);
  ASSERT_TRUE(want.error.empty()) << want.error;
  expectMatches(got, want, c.dtype, /*state=*/true,
                c.name + std::string(" T = ") + std::to_string(T));
}

TEST_P(ChunkedNumerics, MatchesTheReference) {
  const Case &c = GetParam().layer;
  int64_t C = GetParam().chunk;
  for (int64_t T : {int64_t(1), C - 1, C, C + 1, 3 * C + 5}) {
    if (T < 1)
      continue;
    expectChunkedMatches(c, C, c.B, T, /*seed=*/unsigned(T * 31 + C));
    if (HasFatalFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, ChunkedNumerics,
    ::testing::Values(
        ChunkedCase{{"p2_f32_both_learned", 2, 16, 16, 4, 2, ElementKind::F32,
                     GateKind::Both, ScheduleKind::Learned},
                    8},
        // Chunks of 4 and 5 (16-bit): one program each, rows 4 .. 15 (5 ..
        // 15) of its 16-row tile masked.
        ChunkedCase{{"p2_bf16_data_uniform_half_e32", 2, 16, 32, 2, 2,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::Uniform,
                     RotaryLayout::Half},
                    4},
        ChunkedCase{{"p4_f16_head_none", 4, 16, 16, 2, 1, ElementKind::F16,
                     GateKind::Head, ScheduleKind::None,
                     RotaryLayout::Interleaved, 0, 1},
                    5},
        // Chunks longer than 64: the tile chunk_output (query tiles of 64
        // rows; of 32 where 64 does not divide the chunk; of 128, two
        // warpgroups, where unrotated bf16 state steps come by bulk
        // copies and 128 divides the chunk). At p = 2 it
        // factors the state's part (q itself as the dots' operand: split
        // after a rotation or for f16, exact for bf16; d = 48 stages each
        // a in one step of 48 rows; a rotated d = 64 at e = 48 in steps of
        // 32, q's lo half taking the room).
        ChunkedCase{{"p2_bf16_data_learned_c128", 2, 16, 32, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::Learned},
                    128},
        ChunkedCase{{"p2_bf16_data_none_d48_c128", 2, 48, 16, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::None},
                    128},
        ChunkedCase{{"p2_bf16_data_learned_d64_e48_c128", 2, 64, 48, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::Learned},
                    128},
        // d = e = 128: two buffers of 32 state rows in dynamic shared
        // memory (62 KB), warpgroup MMAs of N = 136.
        ChunkedCase{{"p2_bf16_data_none_d128_e128_c128", 2, 128, 128, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::None},
                    128},
        // Two tiles of 128 rows a chunk, key steps as warpgroup MMAs: at d
        // = e = 32 (GQA) 64 keys a step, the second tile walks 2 steps
        // before its first row (weights by products) and its first
        // warpgroup skips the masked step after its rows; d = e = 128 one
        // program per SM, 32 keys a step.
        ChunkedCase{{"p2_bf16_data_none_d32_e32_c256", 2, 32, 32, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::None},
                    256},
        ChunkedCase{{"p2_bf16_head_none_d128_e128_c256", 2, 128, 128, 1, 1,
                     ElementKind::BF16, GateKind::Head, ScheduleKind::None,
                     RotaryLayout::Interleaved, 0, 1},
                    256},
        ChunkedCase{{"p2_f16_both_none_c96", 2, 32, 16, 2, 2, ElementKind::F16,
                     GateKind::Both, ScheduleKind::None},
                    96},
        // p = 4 in the tile chunk_output: phi(Q) built, and the key steps
        // before a program's first row weigh (q.k)^4 by products.
        ChunkedCase{{"p4_bf16_data_none_c128", 4, 16, 16, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::None,
                     RotaryLayout::Interleaved, 0, 1},
                    128},
        // e > 128: [S | Z] is wider than one program's accumulators, so
        // programs along y take a block of the value columns each (with Z,
        // the scores computed again; valueColumnBlocks): 4 of 64 at e =
        // 256 (bf16, factored), 4 of 40 at e = 160 (f16 and rotated: split
        // scores and values), 2 of 88 at e = 176, and phi(Q) built (p = 4).
        ChunkedCase{{"p2_bf16_data_none_e256_c128", 2, 16, 256, 2, 1,
                     ElementKind::BF16, GateKind::Data, ScheduleKind::None},
                    128},
        ChunkedCase{{"p2_f16_both_learned_e160_c128", 2, 32, 160, 2, 1,
                     ElementKind::F16, GateKind::Both, ScheduleKind::Learned},
                    128},
        ChunkedCase{{"p2_bf16_head_none_e176_c128", 2, 16, 176, 1, 1,
                     ElementKind::BF16, GateKind::Head, ScheduleKind::None},
                    128},
        ChunkedCase{{"p4_bf16_head_none_e256_c128", 4, 16, 256, 1, 1,
                     ElementKind::BF16, GateKind::Head, ScheduleKind::None,
                     RotaryLayout::Interleaved, 0, 1},
                    128}),
    [](const ::testing::TestParamInfo<ChunkedCase> &info) {
      return std::string(info.param.layer.name);
    });

// chunk_counts walks a sequence in tiles of threads x 8 tokens (4096,
// ChunkCountsSplit): the count carried from tile to tile and a last tile cut
// short, seen through the rotation of every key and query.
TEST(ChunkedNumericsLong, RotationCountsCarryAcrossTiles) {
  Case c{"p2_f32_data_learned_long",
         2,
         16,
         16,
         1,
         1,
         ElementKind::F32,
         GateKind::Data,
         ScheduleKind::Learned};
  constexpr int64_t kTile =
      ChunkCountsSplit::threads * ChunkCountsSplit::tokensPerThread;
  expectChunkedMatches(c, /*C=*/64, /*B=*/1, /*T=*/kTile + 37,
                       /*seed=*/5);
}

// d = e = 128 takes chunks of 2048 by default (the model's choice at 8
// heads): a second chunk's state and the key steps of a whole chunk before a
// program's rows, on one sequence of one head (the emulator takes about 30
// s).
TEST(ChunkedNumericsLong, DefaultChunkOfWideHeads) {
  Case c{"p2_bf16_data_none_d128_e128_c2048",
         2,
         128,
         128,
         8,
         8,
         ElementKind::BF16,
         GateKind::Data,
         ScheduleKind::None};
  ASSERT_EQ(defaultChunk(specOf(c)), 2048);
  c.hq = c.h = 1;
  expectChunkedMatches(c, /*C=*/2048, /*B=*/1, /*T=*/2048 + 129,
                       /*seed=*/11);
}

class AttentionNumerics : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionNumerics, MatchesTheReference) {
  const Case &c = GetParam();
  AttentionKernelSpec spec = specOf(c);
  ASSERT_FALSE(verifyAttentionKernelSpec(spec));
  LayerCase layer = randomLayer(spec, c.B, c.T, /*seed=*/c.p * 7 + c.e,
                                /*withState=*/false);
  KernelResult got = runLayer(spec, runtime::Formulation::Attention, 0, layer);
  ASSERT_TRUE(got.error.empty()) << got.error;
  ReferenceResult want = runReference(spec, layer);
  ASSERT_TRUE(want.error.empty()) << want.error;
  expectMatches(got, want, c.dtype, /*state=*/false, c.name);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, AttentionNumerics,
    ::testing::Values(
        Case{"p2_f32_both_learned", 2, 16, 16, 4, 2, ElementKind::F32,
             GateKind::Both, ScheduleKind::Learned, RotaryLayout::Interleaved,
             0, 2, 37},
        Case{"p2_bf16_mma_data_uniform", 2, 16, 32, 2, 2, ElementKind::BF16,
             GateKind::Data, ScheduleKind::Uniform, RotaryLayout::Half, 0, 1,
             70, AttentionPath::Mma},
        Case{"p4_f16_mma_head_none", 4, 32, 16, 4, 1, ElementKind::F16,
             GateKind::Head, ScheduleKind::None, RotaryLayout::Interleaved, 0,
             1, 33, AttentionPath::Mma},
        Case{"p2_bf16_scalar_warped", 2, 16, 16, 2, 1, ElementKind::BF16,
             GateKind::None, ScheduleKind::Warped, RotaryLayout::Interleaved, 0,
             1, 40, AttentionPath::Scalar, 16},
        Case{"p2_f32_blend_partial", 2, 32, 32, 2, 2, ElementKind::F32,
             GateKind::Data, ScheduleKind::Blend, RotaryLayout::Half, 16, 1, 45,
             AttentionPath::Auto, 8},
        // The rotating tile kernel at its widest q and k (d = 128 halves,
        // e = 64 within 48 KiB), GQA, partial rotary: chunk_counts without
        // c, rotate_qk, three score products per k step, two steps of keys.
        Case{"p2_bf16_tile_d128_learned_gqa", 2, 128, 64, 4, 2,
             ElementKind::BF16, GateKind::Both, ScheduleKind::Learned,
             RotaryLayout::Half, 96, 1, 100},
        // Rotated d = e = 128: 51 KB of workgroup arrays, so dynamic shared
        // memory (one program per SM, f16 values on the tile kernel).
        Case{"p2_f16_tile_d128_e128_uniform_dynamic", 2, 128, 128, 2, 1,
             ElementKind::F16, GateKind::Data, ScheduleKind::Uniform,
             RotaryLayout::Interleaved, 0, 1, 80},
        // e = 256: [V | 1] exceeds one MMA's N, so four programs per row
        // block take 64 value columns each (the same scores, their own
        // columns of y); GQA, two steps of keys, two sequences.
        Case{"p2_bf16_tile_e256_column_blocks", 2, 32, 256, 4, 2,
             ElementKind::BF16, GateKind::Data, ScheduleKind::None,
             RotaryLayout::Interleaved, 0, 2, 70},
        // ... and rotated (the split scores) with both gates, f16.
        Case{"p2_f16_tile_e256_learned", 2, 64, 256, 2, 2, ElementKind::F16,
             GateKind::Both, ScheduleKind::Learned, RotaryLayout::Half, 0, 1,
             130}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

} // namespace

namespace {

/// Gates below what f32 can express (issue 13): log_g = -1e37 at every token
/// is finite and <= 0, but its running sum leaves the f32 range after 34
/// tokens. Every weight exp(G_i - G_j), j < i, is 0, so y = v at every token
/// (and the final state is the last token's alone), in every formulation
/// and on either path.
struct SaturationCase {
  const char *name;
  runtime::Formulation formulation;
  ElementKind dtype;
  AttentionPath path;
  int64_t chunk;
  int64_t T = 40;
};

void PrintTo(const SaturationCase &c, std::ostream *os) { *os << c.name; }

class GateSaturation : public ::testing::TestWithParam<SaturationCase> {};

TEST_P(GateSaturation, TinyGatesGiveTheValues) {
  const SaturationCase &c = GetParam();
  Case layerCase{
      c.name, 2, 16, 16, 1, 1, c.dtype, GateKind::Data, ScheduleKind::None};
  layerCase.path = c.path;
  AttentionKernelSpec spec = specOf(layerCase);
  bool state = c.formulation != runtime::Formulation::Attention;
  LayerCase layer = randomLayer(spec, /*B=*/1, c.T, /*seed=*/13, state);
  for (double &g : layer.logG)
    g = -1e37;
  KernelResult got = runLayer(spec, c.formulation, c.chunk, layer);
  ASSERT_TRUE(got.error.empty()) << got.error;
  ReferenceResult want = runReference(spec, layer);
  ASSERT_TRUE(want.error.empty()) << want.error;
  // y = v (as the kernel read it) at every token, in the reference too.
  double tol = (c.dtype == ElementKind::F32 ? 1e-4 : 1e-2) * maxAbs(layer.v);
  ASSERT_EQ(got.y.size(), layer.v.size());
  for (size_t i = 0; i < layer.v.size(); ++i) {
    EXPECT_NEAR(want.y[i], layer.v[i], 1e-12 * maxAbs(layer.v))
        << "reference, token " << i / 16;
    ASSERT_NEAR(got.y[i], layer.v[i], tol) << c.name << ", token " << i / 16;
  }
  expectMatches(got, want, c.dtype, state, c.name);
}

INSTANTIATE_TEST_SUITE_P(
    Formulations, GateSaturation,
    ::testing::Values(
        SaturationCase{"attention_scalar_f32", runtime::Formulation::Attention,
                       ElementKind::F32, AttentionPath::Scalar, 0},
        SaturationCase{"attention_mma_bf16", runtime::Formulation::Attention,
                       ElementKind::BF16, AttentionPath::Mma, 0},
        SaturationCase{"chunked_f32_c64", runtime::Formulation::Chunked,
                       ElementKind::F32, AttentionPath::Auto, 64},
        SaturationCase{"chunked_f32_c8", runtime::Formulation::Chunked,
                       ElementKind::F32, AttentionPath::Auto, 8},
        SaturationCase{"chunked_tile_bf16_c64", runtime::Formulation::Chunked,
                       ElementKind::BF16, AttentionPath::Auto, 64},
        SaturationCase{"chunked_tile_f16_c16", runtime::Formulation::Chunked,
                       ElementKind::F16, AttentionPath::Auto, 16},
        // The tile chunk_output: rows 128 .. 159 of a chunk (its second
        // program of two warpgroups) walk four key steps before their
        // first row (weights by products) first.
        SaturationCase{"chunked_tile_bf16_c256", runtime::Formulation::Chunked,
                       ElementKind::BF16, AttentionPath::Auto, 256, 160},
        SaturationCase{"recurrent_f32", runtime::Formulation::Recurrent,
                       ElementKind::F32, AttentionPath::Auto, 0}),
    [](const ::testing::TestParamInfo<SaturationCase> &info) {
      return std::string(info.param.name);
    });

} // namespace
