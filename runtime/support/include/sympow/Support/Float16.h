//===- Float16.h - bf16 and f16 encodings -----------------------*- C++ -*-===//
//
// Round-to-nearest-even conversions between f32 and the 16-bit formats the
// kernels read and write, for staging host data.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_FLOAT16_H
#define SYMPOW_SUPPORT_FLOAT16_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace sympow {

inline uint16_t floatToBfloat16Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return static_cast<uint16_t>((bits >> 16) | 0x40); // quiet NaN
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline float bfloat16BitsToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t floatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t magnitude = x & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN
    return static_cast<uint16_t>(sign | 0x7e00);
  if (magnitude >= 0x477ff000) // rounds to >= 65520: infinity
    return static_cast<uint16_t>(sign | 0x7c00);
  if (magnitude < 0x38800000) { // below the smallest normal half: subnormal
    float scaled = std::fabs(f) * 16777216.0f; // 2^24: units of 2^-24
    return static_cast<uint16_t>(sign |
                                 static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa
  // to 10 bits, to nearest even.
  uint32_t rebased = magnitude - (112u << 23);
  uint32_t rounding = 0xfff + ((rebased >> 13) & 1);
  return static_cast<uint16_t>(sign | ((rebased + rounding) >> 13));
}

inline float halfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_FLOAT16_H
