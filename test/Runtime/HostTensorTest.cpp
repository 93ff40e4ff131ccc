//===- HostTensorTest.cpp - bf16/f16 encodings and staging ----------------===//

#include "sympow/Runtime/HostTensor.h"
#include "sympow/Reference/Rounding.h"
#include "sympow/Support/Float16.h"

#include <gtest/gtest.h>

#include <random>

using namespace sympow;
using namespace sympow::runtime;

TEST(Float16, EveryHalfAndBfloat16ValueRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float half = halfBitsToFloat(static_cast<uint16_t>(h));
    if (!std::isnan(half))
      EXPECT_EQ(floatToHalfBits(half), h) << std::hex << h;
    float bf = bfloat16BitsToFloat(static_cast<uint16_t>(h));
    if (!std::isnan(bf))
      EXPECT_EQ(floatToBfloat16Bits(bf), h) << std::hex << h;
  }
}

TEST(Float16, RoundsToNearestEvenLikeTheReference) {
  // Floats (exact in f64), so both sides round once.
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 30.0f);
  for (int i = 0; i < 200000; ++i) {
    float x = i % 3 ? normal(rng) : std::ldexp(normal(rng), -20);
    EXPECT_EQ(halfBitsToFloat(floatToHalfBits(x)),
              reference::roundTo(reference::InputType::F16, x))
        << x;
    EXPECT_EQ(bfloat16BitsToFloat(floatToBfloat16Bits(x)),
              reference::roundTo(reference::InputType::BF16, x))
        << x;
  }
  EXPECT_TRUE(std::isinf(halfBitsToFloat(floatToHalfBits(65520.0f))));
  EXPECT_EQ(halfBitsToFloat(floatToHalfBits(65519.0f)), 65504.0f);
}

TEST(HostTensor, EncodesAndDecodesEveryElementType) {
  std::vector<double> values = {1.0, -2.5, 0.1, 1e-3};
  for (ElementType type : {ElementType::BF16, ElementType::F16,
                           ElementType::F32, ElementType::F64}) {
    std::vector<uint8_t> bytes = encodeTensor(type, values);
    ASSERT_EQ(bytes.size(), values.size() * elementBytes(type));
    std::vector<double> back = decodeTensor(type, bytes.data(), values.size());
    EXPECT_EQ(back[0], 1.0);
    EXPECT_EQ(back[1], -2.5);
    double tol = type == ElementType::F64   ? 0
                 : type == ElementType::F32 ? 1e-8
                                            : 1e-3;
    EXPECT_NEAR(back[2], 0.1, tol);
  }
  EXPECT_EQ(decodeTensor(ElementType::F64,
                         encodeTensor(ElementType::F64, {0.1}).data(), 1)[0],
            0.1);
}
