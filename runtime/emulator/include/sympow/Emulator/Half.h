//===- Half.h - f16 and bf16 conversions ------------------------*- C++ -*-===//
//
// Round-to-nearest-even conversions between f32 and the 16-bit float
// formats, as the emulator's mma.sync uses them; for tools and tests that
// fill or print f16/bf16 buffers. They are the runtime's conversions
// (sympow/Support/Float16.h) under the emulator's names.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_HALF_H
#define SYMPOW_EMULATOR_HALF_H

#include "sympow/Support/Float16.h"

namespace sympow::emu {

inline float halfToFloat(uint16_t h) { return halfBitsToFloat(h); }
inline uint16_t floatToHalf(float f) { return floatToHalfBits(f); }
inline float bf16ToFloat(uint16_t h) { return bfloat16BitsToFloat(h); }
inline uint16_t floatToBf16(float f) { return floatToBfloat16Bits(f); }

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_HALF_H
