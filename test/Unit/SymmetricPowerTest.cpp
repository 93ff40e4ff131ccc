//===- SymmetricPowerTest.cpp - D = C(d + p - 1, p) -----------------------===//

#include "sympow/Dialect/SymmetricPower.h"

#include <gtest/gtest.h>

using namespace sympow;

TEST(SymmetricPower, MatchesSpecExamples) {
  // SPEC: d = 64 gives D = 2080 for p = 2 and 766480 for p = 4.
  EXPECT_EQ(symmetricPowerDim(64, 2), 2080);
  EXPECT_EQ(symmetricPowerDim(64, 4), 766480);
}

TEST(SymmetricPower, CountsMultisetsByEnumeration) {
  // Count multisets i1 <= i2 <= i3 <= i4 of {0..d-1} directly.
  for (int64_t d = 1; d <= 7; ++d) {
    int64_t count = 0;
    for (int64_t a = 0; a < d; ++a)
      for (int64_t b = a; b < d; ++b)
        for (int64_t c = b; c < d; ++c)
          for (int64_t e = c; e < d; ++e)
            ++count;
    EXPECT_EQ(symmetricPowerDim(d, 4), count) << "d = " << d;
  }
}

TEST(SymmetricPower, RejectsBadSizesAndOverflow) {
  EXPECT_FALSE(symmetricPowerDim(0, 2));
  EXPECT_FALSE(symmetricPowerDim(4, -2));
  EXPECT_FALSE(symmetricPowerDim(1 << 20, 64));
  EXPECT_EQ(symmetricPowerDim(5, 0), 1);
  // Bounded work whatever the values (issue 13): d = 1 is 1 for any p,
  // C(p + 1, 2) for d = 2, overflow found within ~64 steps otherwise.
  EXPECT_EQ(symmetricPowerDim(1, int64_t(1) << 62), 1);
  EXPECT_EQ(symmetricPowerDim(2, int64_t(1) << 31),
            ((int64_t(1) << 31) + 1));
  EXPECT_EQ(symmetricPowerDim(3, 1000), 501501);
  EXPECT_FALSE(symmetricPowerDim(8, 100000000000000LL));
  EXPECT_FALSE(symmetricPowerDim(8, INT64_MAX));
}

TEST(SymmetricPower, SupportedPowers) {
  EXPECT_TRUE(isSupportedPower(2));
  EXPECT_TRUE(isSupportedPower(8));
  EXPECT_FALSE(isSupportedPower(0));
  EXPECT_FALSE(isSupportedPower(3));
  EXPECT_FALSE(isSupportedPower(-2));
  EXPECT_TRUE(isSupportedPower(32));
  EXPECT_FALSE(isSupportedPower(34));
  EXPECT_FALSE(isSupportedPower(int64_t(1) << 31));
}
