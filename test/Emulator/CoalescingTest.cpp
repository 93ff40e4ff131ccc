//===- CoalescingTest.cpp - Sectors and wavefronts of warp accesses -------===//
//
// The classic patterns, with the counts the CUDA programming guide and
// Nsight Compute give for them: a warp reading 32 consecutive floats takes
// 4 sectors and 1 wavefront; a stride of 32 floats, 32 wavefronts; lanes
// reading one word, 1 (broadcast); 16-byte accesses are served 8 lanes at a
// time.
//
//===----------------------------------------------------------------------===//

#include "Coalescing.h"

#include <gtest/gtest.h>

#include <vector>

using namespace sympow::emu::coalescing;

namespace {

/// Lanes 0..31, lane l accessing `bytes` at base + l * stride.
std::vector<LaneAccess> strided(int64_t base, int64_t stride, int64_t bytes,
                                unsigned lanes = 32) {
  std::vector<LaneAccess> v;
  for (unsigned l = 0; l < lanes; ++l)
    v.push_back({l, base + int64_t(l) * stride, bytes});
  return v;
}

uint64_t sectors(const std::vector<LaneAccess> &v) {
  return globalSectors(v.data(), v.size());
}
uint64_t wavefronts(const std::vector<LaneAccess> &v) {
  return sharedWavefronts(v.data(), v.size());
}

TEST(Coalescing, GlobalSectors) {
  EXPECT_EQ(sectors(strided(0, 4, 4)), 4u);    // 128 contiguous bytes
  EXPECT_EQ(sectors(strided(4, 4, 4)), 5u);    // misaligned by one float
  EXPECT_EQ(sectors(strided(0, 16, 16)), 16u); // 512 bytes of float4
  EXPECT_EQ(sectors(strided(0, 32, 16)), 32u); // half of every sector used
  EXPECT_EQ(sectors(strided(0, 128, 4)), 32u); // one sector per lane
  EXPECT_EQ(sectors(strided(64, 0, 4)), 1u);   // every lane the same word
  EXPECT_EQ(sectors(strided(0, 2, 2)), 2u);    // 64 bytes of bf16
  EXPECT_EQ(sectors(strided(0, 4, 4, 7)), 1u); // a partial warp
  EXPECT_EQ(sectors({}), 0u);
}

TEST(Coalescing, SharedWavefrontsFourBytes) {
  EXPECT_EQ(wavefronts(strided(0, 4, 4)), 1u);    // one word per bank
  EXPECT_EQ(wavefronts(strided(0, 8, 4)), 2u);    // stride 2: 2-way
  EXPECT_EQ(wavefronts(strided(0, 128, 4)), 32u); // one bank, 32 words
  EXPECT_EQ(wavefronts(strided(0, 132, 4)), 1u);  // padded row: no conflict
  EXPECT_EQ(wavefronts(strided(256, 0, 4)), 1u);  // broadcast
  // Lanes l and l + 16 read the same word: a multicast, not a conflict.
  std::vector<LaneAccess> pairs;
  for (unsigned l = 0; l < 32; ++l)
    pairs.push_back({l, int64_t(l % 16) * 4, 4});
  EXPECT_EQ(wavefronts(pairs), 1u);
}

TEST(Coalescing, SharedWavefrontsNarrowAndWide) {
  // 2-byte lanes share words: 64 bytes, one wavefront.
  EXPECT_EQ(wavefronts(strided(0, 2, 2)), 1u);
  // 8 bytes: two half-warp phases of 128 bytes each.
  EXPECT_EQ(wavefronts(strided(0, 8, 8)), 2u);
  // 16 bytes: four quarter-warp phases.
  EXPECT_EQ(wavefronts(strided(0, 16, 16)), 4u);
  // 16 bytes at a 32-byte stride (rows of 16 bf16): lanes l and l + 4 of a
  // phase meet in the same banks, 2 wavefronts per phase.
  EXPECT_EQ(wavefronts(strided(0, 32, 16)), 8u);
  // ... and at 48 bytes (a row padded by 16 bytes) they do not.
  EXPECT_EQ(wavefronts(strided(0, 48, 16)), 4u);
  // Only the phases with lanes count: 8 lanes of 16 bytes, one phase.
  EXPECT_EQ(wavefronts(strided(0, 16, 16, 8)), 1u);
  EXPECT_EQ(wavefronts({}), 0u);
}

} // namespace
