//===- WarpTest.cpp - The runtime's warp collectives, directly ------------===//

#include "Warp.h"
#include "Warpgroup.h"

#include "sympow/Emulator/ABI.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace sympow::emu;
namespace emuabi = sympow::emu::abi;

namespace {

TEST(Warp, ShuffleSourceFollowsShflSync) {
  // Width 32: every mode, including the clamps.
  EXPECT_EQ(warp::shuffleSource(5, 1, 32, emuabi::Xor),
            (std::pair<unsigned, bool>{4, true}));
  EXPECT_EQ(warp::shuffleSource(30, 4, 32, emuabi::Down),
            (std::pair<unsigned, bool>{30, false}));
  EXPECT_EQ(warp::shuffleSource(1, 2, 32, emuabi::Up),
            (std::pair<unsigned, bool>{1, false}));
  EXPECT_EQ(warp::shuffleSource(9, 2, 32, emuabi::Up),
            (std::pair<unsigned, bool>{7, true}));
  EXPECT_EQ(warp::shuffleSource(9, 33, 32, emuabi::Idx), // b[4:0] = 1
            (std::pair<unsigned, bool>{1, true}));
  // Width 8: sources past lane 7 are out of range (own value).
  EXPECT_EQ(warp::shuffleSource(6, 2, 8, emuabi::Xor),
            (std::pair<unsigned, bool>{4, true}));
  EXPECT_EQ(warp::shuffleSource(6, 4, 8, emuabi::Down),
            (std::pair<unsigned, bool>{6, false}));
  EXPECT_EQ(warp::shuffleSource(3, 9, 8, emuabi::Idx),
            (std::pair<unsigned, bool>{3, false}));
}

TEST(Warp, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to even (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  for (uint32_t h = 0; h < 0x7c00; ++h)
    ASSERT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h);
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  // 1 + 2^-8 ties to even (1); 1 + 3 * 2^-8 rounds up.
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
}

TEST(Warp, LdMatrixFragments) {
  // Two 8x8 b16 matrices; element (m, r, c) = 100 m + 10 r + c.
  uint16_t mats[2][8][8];
  for (int m = 0; m < 2; ++m)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c)
        mats[m][r][c] = static_cast<uint16_t>(100 * m + 10 * r + c);
  const uint8_t *rows[16];
  for (int m = 0; m < 2; ++m)
    for (int r = 0; r < 8; ++r)
      rows[8 * m + r] = reinterpret_cast<const uint8_t *>(mats[m][r]);
  uint16_t out[32][4];
  void *outs[32];
  for (int l = 0; l < 32; ++l)
    outs[l] = out[l];
  warp::ldmatrix(rows, 2, false, outs);
  for (int l = 0; l < 32; ++l)
    for (int m = 0; m < 2; ++m) {
      EXPECT_EQ(out[l][2 * m], 100 * m + 10 * (l / 4) + 2 * (l % 4));
      EXPECT_EQ(out[l][2 * m + 1], 100 * m + 10 * (l / 4) + 2 * (l % 4) + 1);
    }
  warp::ldmatrix(rows, 2, true, outs);
  for (int l = 0; l < 32; ++l)
    for (int m = 0; m < 2; ++m) {
      EXPECT_EQ(out[l][2 * m], 100 * m + 10 * (2 * (l % 4)) + l / 4);
      EXPECT_EQ(out[l][2 * m + 1], 100 * m + 10 * (2 * (l % 4) + 1) + l / 4);
    }
}

// The tf32 fragment layouts of the PTX ISA (m16n8k8), written out here a
// second time, against a plain matmul.
TEST(Warp, MmaTf32M16N8K8) {
  float A[16][8], B[8][8], C[16][8];
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 8; ++k)
      A[i][k] = static_cast<float>((i * 7 + k * 3) % 11) - 5;
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j)
      B[k][j] = static_cast<float>((k * 5 + j) % 7) - 3;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      C[i][j] = static_cast<float>(i - j);
  float a[32][4], b[32][2], c[32][4], d[32][4];
  const void *pa[32], *pb[32], *pc[32];
  void *pd[32];
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    a[l][0] = A[g][t];
    a[l][1] = A[g + 8][t];
    a[l][2] = A[g][t + 4];
    a[l][3] = A[g + 8][t + 4];
    b[l][0] = B[t][g];
    b[l][1] = B[t + 4][g];
    c[l][0] = C[g][2 * t];
    c[l][1] = C[g][2 * t + 1];
    c[l][2] = C[g + 8][2 * t];
    c[l][3] = C[g + 8][2 * t + 1];
    pa[l] = a[l];
    pb[l] = b[l];
    pc[l] = c[l];
    pd[l] = d[l];
  }
  ASSERT_EQ(warp::mmaUnsupported(16, 8, 8, emuabi::TF32, emuabi::F32), "");
  warp::mma(16, 8, 8, emuabi::TF32, emuabi::F32, pa, pb, pc, pd);
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i / 2), col = 2 * t + i % 2;
      float expected = C[row][col];
      for (int k = 0; k < 8; ++k)
        expected += A[row][k] * B[k][col];
      EXPECT_EQ(d[l][i], expected) << "lane " << l << " element " << i;
    }
  }
}

TEST(Warp, UnsupportedMmaShapesAreNamed) {
  EXPECT_NE(warp::mmaUnsupported(16, 8, 32, emuabi::F16, emuabi::F32), "");
  EXPECT_NE(warp::mmaUnsupported(8, 8, 4, emuabi::F16, emuabi::F32), "");
  EXPECT_NE(warp::mmaUnsupported(16, 8, 16, emuabi::BF16, emuabi::F16), "");
  EXPECT_EQ(warp::mmaUnsupported(16, 8, 16, emuabi::F16, emuabi::F16), "");
}

TEST(Warpgroup, DescriptorFieldsSitWhereThePtxTableSays) {
  // Start 0x2a30 >> 4 in bits 0-13, leading 1152 >> 4 in 16-29, stride
  // 128 >> 4 in 32-45, base offset 0 in 49-51, 128-byte swizzle (1) in 62-63.
  uint64_t bits = (0x2a30u >> 4) | uint64_t(1152 >> 4) << 16 |
                  uint64_t(128 >> 4) << 32 | uint64_t(1) << 62;
  warpgroup::MatrixDescriptor d = warpgroup::decode(bits);
  EXPECT_EQ(d.start, 0x2a30u);
  EXPECT_EQ(d.leading, 1152u);
  EXPECT_EQ(d.stride, 128u);
  EXPECT_EQ(d.swizzle, 128);
  EXPECT_TRUE(warpgroup::unsupported(d).empty());
  EXPECT_EQ(warpgroup::decode(uint64_t(2) << 62).swizzle, 64);
  EXPECT_EQ(warpgroup::decode(uint64_t(3) << 62).swizzle, 32);
  // A base offset is reported, not read past.
  EXPECT_FALSE(
      warpgroup::unsupported(warpgroup::decode(uint64_t(5) << 49)).empty());
  // Bits outside the fields do not leak into them.
  EXPECT_EQ(warpgroup::decode(~uint64_t(0) & ~(uint64_t(0x3fff) << 16)).leading,
            0u);
}

TEST(Warpgroup, SwizzlePermutesSixteenByteUnitsWithinEachRow) {
  // 128-byte swizzle, K-major: row r of a pattern keeps its 128 bytes, its
  // 16-byte unit u moves to u ^ (r % 8); elements stay in their unit.
  warpgroup::MatrixDescriptor d{0, 16, 1024, 128, 0};
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) {
      uint32_t a = warpgroup::elementAddress(d, false, r, k);
      EXPECT_EQ(a / 128, uint32_t(r)) << r << ", " << k;
      EXPECT_EQ((a % 128) / 16, uint32_t((k / 8) ^ (r % 8))) << r << ", " << k;
      EXPECT_EQ(a % 16, uint32_t(k % 8) * 2);
    }
  // Without a swizzle, K-major core matrices: rows 16 bytes apart, the
  // second 8 columns `leading` on, the next 8 rows `stride` on.
  warpgroup::MatrixDescriptor plain{256, 1024, 128, 0, 0};
  EXPECT_EQ(warpgroup::elementAddress(plain, false, 9, 10),
            256u + 1 * 16 + 1 * 128 + 1 * 1024 + 2 * 2);
  // MN-major: 8 contiguous MN elements, k rows 16 bytes apart.
  EXPECT_EQ(warpgroup::elementAddress(plain, true, 9, 10),
            256u + 1 * 2 + 1 * 128 + 2 * 16 + 1 * 1024);
}

TEST(Warpgroup, AccumulatorsFollowMmaSyncPerWarp) {
  EXPECT_EQ(warpgroup::accumulatorCoord(0, 0), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(warpgroup::accumulatorCoord(5, 3), (std::pair<int, int>{9, 3}));
  EXPECT_EQ(warpgroup::accumulatorCoord(37, 6), (std::pair<int, int>{25, 10}));
  EXPECT_EQ(warpgroup::accumulatorCoord(127, 35),
            (std::pair<int, int>{63, 71}));
}

} // namespace
