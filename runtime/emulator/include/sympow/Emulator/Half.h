//===- Half.h - f16 and bf16 conversions ------------------------*- C++ -*-===//
//
// Round-to-nearest-even conversions between f32 and the 16-bit float
// formats, as the emulator's mma.sync uses them; for tools and tests that
// fill or print f16/bf16 buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_HALF_H
#define SYMPOW_EMULATOR_HALF_H

#include <cstdint>

namespace sympow::emu {

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f);

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_HALF_H
