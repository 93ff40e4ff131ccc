//===- SoftFloat.cpp - bf16 helpers the JIT-compiled kernels call ---------===//
//
// On hosts without native bf16, LLVM keeps bf16 values in float registers
// and rounds them with __truncsfbf2 / __truncdfbf2, which libgcc before
// GCC 13 lacks. The JIT resolves those names to these functions. A bf16
// travels in the low 16 bits of a float register (x86-64 and AArch64), so a
// float whose low bits hold the result returns it in the right place.
//
//===----------------------------------------------------------------------===//

#include "SoftFloat.h"

#include "sympow/Emulator/Half.h"

#include <cmath>
#include <cstring>

float sympow::emu::truncSFtoBF(float x) {
  uint32_t bits = floatToBf16(x);
  float carrier;
  std::memcpy(&carrier, &bits, 4);
  return carrier;
}

float sympow::emu::truncDFtoBF(double x) {
  // Round once, from double: take the 8-bit significand by rounding to
  // nearest even at the bf16 precision in double arithmetic.
  uint16_t h;
  if (std::isnan(x) || std::isinf(x) || x == 0) {
    h = floatToBf16(static_cast<float>(x));
  } else {
    int e;
    double m = std::frexp(std::fabs(x), &e); // [0.5, 1)
    double scaled = std::nearbyint(std::ldexp(m, 8));
    double rounded = std::copysign(std::ldexp(scaled, e - 8), x);
    // The rounded value has 8 significant bits, so it is exact in float
    // unless it is out of bf16's range (then float rounding gives inf/0 the
    // same way bf16 would, up to subnormal double rounding).
    h = floatToBf16(static_cast<float>(rounded));
  }
  uint32_t bits = h;
  float carrier;
  std::memcpy(&carrier, &bits, 4);
  return carrier;
}
