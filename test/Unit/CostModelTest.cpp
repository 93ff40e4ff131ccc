//===- CostModelTest.cpp - The formulation cost model ---------------------===//

#include "sympow/Compiler/CostModel.h"
#include "sympow/Dialect/SympowAttrs.h"

#include <gtest/gtest.h>

using namespace sympow;

static LayerSizes layer(int64_t seqLen, int64_t headDim, int64_t power) {
  LayerSizes s;
  s.batch = 1;
  s.seqLen = seqLen;
  s.queryHeads = 8;
  s.keyHeads = 8;
  s.headDim = headDim;
  s.valueDim = headDim;
  s.power = power;
  s.elementBytes = 2;
  return s;
}

TEST(CostModel, AttentionGrowsQuadraticallyChunkedLinearly) {
  Cost a1 = attentionCost(layer(4096, 64, 2));
  Cost a2 = attentionCost(layer(8192, 64, 2));
  EXPECT_NEAR(a2.flops / a1.flops, 4.0, 0.01);
  Cost c1 = chunkedCost(layer(4096, 64, 2), 64);
  Cost c2 = chunkedCost(layer(8192, 64, 2), 64);
  EXPECT_NEAR(c2.flops / c1.flops, 2.0, 0.01);
}

// With today's kernels and chunks of 64 the chunked formulation overtakes
// attention at about 32K tokens at d = 64 (predicted for sm_90a: 1.34
// against 0.69 ms at 16K, 2.671 against 2.675 ms at 32K, 5.33 against
// 10.56 ms at 64K, since chunk_output's state steps come by bulk copies;
// between 32K and 64K before; at the default chunk, 512, below 16K:
// docs/Performance.md); before the tile attention kernel it was between
// 14K and 16K, before chunk_state_pass between 16K and 32K, and before
// chunk_scan ran parallel over the state (docs/TileIR.md) between 256K and
// 512K.
TEST(CostModel, ShortSequencesUseAttentionLongOnesChunked) {
  EXPECT_EQ(chooseFormulation(layer(256, 64, 2), 64),
            FormulationKind::Attention);
  EXPECT_EQ(chooseFormulation(layer(1 << 14, 64, 2), 64),
            FormulationKind::Attention);
  EXPECT_EQ(chooseFormulation(layer(1 << 16, 64, 2), 64),
            FormulationKind::Chunked);
  EXPECT_EQ(chooseFormulation(layer(1 << 21, 64, 2), 64),
            FormulationKind::Chunked);
}

TEST(CostModel, HigherPowerMovesTheCrossoverLater) {
  // D grows as d^p / p!: the state is far larger for p = 4, so attention
  // stays cheaper at lengths where p = 2 already prefers chunks.
  int64_t crossover2 = 0, crossover4 = 0;
  for (int64_t t = 64; t <= (1 << 26) && !(crossover2 && crossover4); t *= 2) {
    if (!crossover2 &&
        chooseFormulation(layer(t, 32, 2), 64) == FormulationKind::Chunked)
      crossover2 = t;
    if (!crossover4 &&
        chooseFormulation(layer(t, 32, 4), 64) == FormulationKind::Chunked)
      crossover4 = t;
  }
  ASSERT_GT(crossover2, 0);
  ASSERT_GT(crossover4, 0);
  EXPECT_LT(crossover2, crossover4);
}

TEST(CostModel, DecodingOneTokenAgainstAStateIsRecurrent) {
  LayerSizes s = layer(1, 64, 2);
  s.hasInitialState = true;
  EXPECT_EQ(chooseFormulation(s, 64), FormulationKind::Recurrent);
  s.hasInitialState = false;
  EXPECT_NE(chooseFormulation(s, 64), FormulationKind::Recurrent);
}
