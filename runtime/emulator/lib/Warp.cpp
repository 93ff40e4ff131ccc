//===- Warp.cpp - Data exchange of warp collectives -----------------------===//

#include "Warp.h"

#include "sympow/Emulator/ABI.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace sympow::emu;
using namespace sympow::emu::warp;

std::pair<unsigned, bool> warp::shuffleSource(unsigned lane, uint32_t offset,
                                              uint32_t width, int32_t mode) {
  // shfl.sync: segmask 0, so minLane = 0 and maxLane = clamp value.
  int32_t bval = static_cast<int32_t>(offset & 31);
  int32_t l = static_cast<int32_t>(lane);
  int32_t j = l;
  bool valid = false;
  switch (mode) {
  case abi::Up: {
    int32_t maxLane = 32 - static_cast<int32_t>(width);
    j = l - bval;
    valid = j >= maxLane;
    break;
  }
  case abi::Down:
    j = l + bval;
    valid = j <= static_cast<int32_t>(width) - 1;
    break;
  case abi::Xor:
    j = l ^ bval;
    valid = j <= static_cast<int32_t>(width) - 1;
    break;
  case abi::Idx:
    j = bval;
    valid = j <= static_cast<int32_t>(width) - 1;
    break;
  default:
    break;
  }
  if (!valid)
    j = l; // an out-of-range source copies the lane's own value
  return {static_cast<unsigned>(j), valid};
}

void warp::ldmatrix(const uint8_t *const rows[], int numTiles, bool transpose,
                    void *const out[kWarpSize]) {
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    auto *dst = static_cast<uint8_t *>(out[lane]);
    unsigned group = lane / 4, inGroup = lane % 4;
    for (int tile = 0; tile < numTiles; ++tile) {
      if (!transpose) {
        // Row `group`, b16 columns 2*inGroup and 2*inGroup + 1.
        std::memcpy(dst + 4 * tile, rows[8 * tile + group] + 4 * inGroup, 4);
        continue;
      }
      // Transposed: column `group` of rows 2*inGroup and 2*inGroup + 1.
      std::memcpy(dst + 4 * tile, rows[8 * tile + 2 * inGroup] + 2 * group, 2);
      std::memcpy(dst + 4 * tile + 2,
                  rows[8 * tile + 2 * inGroup + 1] + 2 * group, 2);
    }
  }
}

float sympow::emu::halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, mant = h & 1023;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(mant | 1024), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

uint16_t sympow::emu::floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  if (std::isnan(f))
    return sign | 0x7e00;
  float a = std::fabs(f);
  if (a >= 65520.0f) // rounds to infinity
    return sign | 0x7c00;
  if (a < std::ldexp(1.0f, -14)) {
    // Subnormal: multiples of 2^-24, round to nearest even.
    float scaled = a * 16777216.0f; // 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  int e;
  float m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  // 11 significant bits: mantissa in [1024, 2048).
  float sig = std::nearbyint(std::ldexp(m, 11));
  if (sig >= 2048.0f) {
    sig = 1024.0f;
    ++e;
  }
  uint32_t biased = static_cast<uint32_t>(e - 1 + 15);
  if (biased >= 31)
    return sign | 0x7c00;
  return sign | static_cast<uint16_t>((biased << 10) |
                                      (static_cast<uint32_t>(sig) - 1024));
}

float sympow::emu::bf16ToFloat(uint16_t h) {
  uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t sympow::emu::floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f))
    return static_cast<uint16_t>((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

namespace {

/// Where fragment element `i` of a lane lives in its matrix.
struct Coord {
  int row, col;
};

// PTX ISA "Matrix fragments for mma.m16n8k*": group = lane / 4,
// inGroup = lane % 4.
Coord aCoord(int k, int32_t abType, unsigned lane, int i) {
  int g = static_cast<int>(lane / 4), t = static_cast<int>(lane % 4);
  if (abType == abi::TF32 || abType == abi::F32) {
    if (k == 4)
      return {g + 8 * i, t};
    return {g + 8 * (i & 1), t + 4 * (i >> 1)}; // k == 8
  }
  if (k == 8)
    return {g + 8 * (i >> 1), 2 * t + (i & 1)};
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)}; // k == 16
}

Coord bCoord(int k, int32_t abType, unsigned lane, int i) {
  int g = static_cast<int>(lane / 4), t = static_cast<int>(lane % 4);
  if (abType == abi::TF32 || abType == abi::F32)
    return {t + 4 * i, g}; // (k, n)
  if (k == 8)
    return {2 * t + (i & 1), g};
  return {2 * t + (i & 1) + 8 * (i >> 1), g}; // k == 16
}

Coord cCoord(unsigned lane, int i) {
  int g = static_cast<int>(lane / 4), t = static_cast<int>(lane % 4);
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

float load(const void *p, int i, int32_t type) {
  if (type == abi::F16 || type == abi::BF16) {
    uint16_t h;
    std::memcpy(&h, static_cast<const uint8_t *>(p) + 2 * i, 2);
    return type == abi::F16 ? halfToFloat(h) : bf16ToFloat(h);
  }
  float f;
  std::memcpy(&f, static_cast<const uint8_t *>(p) + 4 * i, 4);
  if (type == abi::TF32) {
    // The tensor core reads the top 19 bits of a tf32 operand.
    uint32_t x;
    std::memcpy(&x, &f, 4);
    x &= 0xffffe000u;
    std::memcpy(&f, &x, 4);
  }
  return f;
}

void store(void *p, int i, int32_t type, float v) {
  if (type == abi::F16) {
    uint16_t h = floatToHalf(v);
    std::memcpy(static_cast<uint8_t *>(p) + 2 * i, &h, 2);
    return;
  }
  std::memcpy(static_cast<uint8_t *>(p) + 4 * i, &v, 4);
}

} // namespace

std::string warp::mmaUnsupported(int m, int n, int k, int32_t abType,
                                 int32_t cType) {
  bool half = abType == abi::F16 || abType == abi::BF16;
  bool tf32 = abType == abi::TF32 || abType == abi::F32;
  if (m != 16 || n != 8)
    return "only m16n8kK shapes are emulated";
  if (half && k != 8 && k != 16)
    return "f16/bf16 mma.sync needs k = 8 or 16";
  if (tf32 && k != 4 && k != 8)
    return "tf32 mma.sync needs k = 4 or 8";
  if (!half && !tf32)
    return "operand type is not f16, bf16 or tf32";
  if (cType != abi::F32 && !(cType == abi::F16 && abType == abi::F16))
    return "accumulator must be f32 (or f16 with f16 operands)";
  return {};
}

void warp::mma(int m, int n, int k, int32_t abType, int32_t cType,
               const void *const a[kWarpSize], const void *const b[kWarpSize],
               const void *const c[kWarpSize], void *const d[kWarpSize]) {
  std::vector<float> A(m * k), B(k * n), C(m * n);
  int aElems = m * k / 32, bElems = k * n / 32, cElems = m * n / 32;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    for (int i = 0; i < aElems; ++i) {
      Coord co = aCoord(k, abType, lane, i);
      A[co.row * k + co.col] = load(a[lane], i, abType);
    }
    for (int i = 0; i < bElems; ++i) {
      Coord co = bCoord(k, abType, lane, i);
      B[co.row * n + co.col] = load(b[lane], i, abType);
    }
    for (int i = 0; i < cElems; ++i) {
      Coord co = cCoord(lane, i);
      C[co.row * n + co.col] = load(c[lane], i, cType);
    }
  }
  // Products are exact in f32 for these inputs; accumulate in double and
  // round once (the hardware accumulates with at least f32 precision).
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < cElems; ++i) {
      Coord co = cCoord(lane, i);
      double sum = C[co.row * n + co.col];
      for (int kk = 0; kk < k; ++kk)
        sum += static_cast<double>(A[co.row * k + kk]) * B[kk * n + co.col];
      store(d[lane], i, cType, static_cast<float>(sum));
    }
}
