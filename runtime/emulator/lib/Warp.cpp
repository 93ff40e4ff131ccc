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
