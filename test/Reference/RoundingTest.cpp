//===- RoundingTest.cpp - Rounding q, k, v to kernel input types ----------===//

#include "sympow/Reference/Rounding.h"
#include "TestUtil.h"

#include <cstring>
#include <limits>

using namespace sympow::reference;
using namespace sympow::reference::test;

TEST(Rounding, F32MatchesHardwareConversion) {
  Rng rng(3);
  for (int i = 0; i < 2000; ++i) {
    double x = rng.normal() * std::ldexp(1.0, int(rng.uniform(-140, 130)));
    EXPECT_EQ(roundTo(InputType::F32, x), double(static_cast<float>(x))) << x;
  }
}

TEST(Rounding, TiesGoToEven) {
  EXPECT_EQ(roundTo(InputType::F32, 1 + std::ldexp(1.0, -24)), 1.0);
  EXPECT_EQ(roundTo(InputType::F32, 1 + 3 * std::ldexp(1.0, -24)),
            1 + std::ldexp(1.0, -22));
  EXPECT_EQ(roundTo(InputType::BF16, 1 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(roundTo(InputType::BF16, 1 + 3 * std::ldexp(1.0, -8)),
            1 + std::ldexp(1.0, -6));
  EXPECT_EQ(roundTo(InputType::F16, 1 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_EQ(roundTo(InputType::F16, -(1 + 3 * std::ldexp(1.0, -11))),
            -(1 + std::ldexp(1.0, -9)));
}

TEST(Rounding, KnownValues) {
  EXPECT_EQ(roundTo(InputType::BF16, 0.1), 0.10009765625);  // 0x3DCD
  EXPECT_EQ(roundTo(InputType::F16, 0.1), 0.0999755859375); // 0x2E66
  EXPECT_EQ(roundTo(InputType::F64, 0.1), 0.1);
}

TEST(Rounding, F16RangeSubnormalsAndOverflow) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(roundTo(InputType::F16, 65504.0), 65504.0);
  EXPECT_EQ(roundTo(InputType::F16, 65519.0), 65504.0);
  EXPECT_EQ(roundTo(InputType::F16, 65520.0), inf);
  EXPECT_EQ(roundTo(InputType::F16, -1e6), -inf);
  EXPECT_EQ(roundTo(InputType::F16, std::ldexp(1.0, -24)),
            std::ldexp(1.0, -24));
  EXPECT_EQ(roundTo(InputType::F16, std::ldexp(1.0, -25)), 0.0);
  EXPECT_EQ(roundTo(InputType::F16, 1.5 * std::ldexp(1.0, -25)),
            std::ldexp(1.0, -24));
  EXPECT_EQ(roundTo(InputType::BF16, 1e39), inf); // past bf16's ~3.39e38
  EXPECT_EQ(roundTo(InputType::BF16, 3.0e38), std::ldexp(226.0, 120));
}

TEST(Tensor, FloatBuffersRoundTrip) {
  const float in[] = {1.5f, -2.25f, 3.0e-8f, 7.0f, 0.1f, -0.0f};
  Tensor t = tensorFromFloats({2, 3}, in);
  EXPECT_EQ(t.shapeString(), "[2, 3]");
  EXPECT_EQ(t.data[4], double(0.1f));
  std::vector<float> out = toFloats(t);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(std::memcmp(out.data(), in, sizeof(in)), 0);
}
