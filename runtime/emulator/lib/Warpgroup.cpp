//===- Warpgroup.cpp - What a warpgroup MMA reads and computes ------------===//

#include "Warpgroup.h"

#include "sympow/Support/WgmmaLayout.h"

using namespace sympow::emu;
using namespace sympow::emu::warpgroup;

MatrixDescriptor warpgroup::decode(uint64_t bits) {
  auto field = [&](int shift, int width) {
    return static_cast<uint32_t>((bits >> shift) &
                                 ((uint64_t(1) << width) - 1));
  };
  MatrixDescriptor d;
  d.start = field(0, 14) << 4;
  d.leading = field(16, 14) << 4;
  d.stride = field(32, 14) << 4;
  d.baseOffset = static_cast<int>(field(49, 3));
  static constexpr int kSwizzle[] = {0, 128, 64, 32};
  d.swizzle = kSwizzle[field(62, 2)];
  return d;
}

std::string warpgroup::unsupported(const MatrixDescriptor &d) {
  if (d.baseOffset != 0)
    return "a base offset of " + std::to_string(d.baseOffset) +
           " (the emulator takes swizzled matrices that start on their "
           "pattern, base offset 0)";
  return {};
}

uint32_t warpgroup::elementAddress(const MatrixDescriptor &d, bool mnMajor,
                                   int mn, int k) {
  wgmma::IntegerOps o;
  int64_t offset = wgmma::unswizzledOffset<int64_t>(
      o, mn, k, mnMajor, d.leading, d.stride, d.swizzle);
  return static_cast<uint32_t>(
      wgmma::swizzled<int64_t>(o, d.start + offset, d.swizzle));
}

std::pair<int, int> warpgroup::accumulatorCoord(unsigned thread, int i) {
  int w = static_cast<int>(thread / 32), l = static_cast<int>(thread % 32);
  return {16 * w + l / 4 + 8 * ((i >> 1) & 1),
          8 * (i >> 2) + 2 * (l % 4) + (i & 1)};
}

std::pair<int, int> warpgroup::registerACoord(unsigned thread, int i) {
  return accumulatorCoord(thread, i);
}

void warpgroup::multiply(int n, const float *a, const float *b,
                         const float *const c[kThreads],
                         float *const d[kThreads]) {
  for (unsigned t = 0; t < kThreads; ++t)
    for (int i = 0; i < n / 2; ++i) {
      auto [row, col] = accumulatorCoord(t, i);
      double sum = c[t] ? c[t][i] : 0.0;
      for (int k = 0; k < kDepth; ++k)
        sum += static_cast<double>(a[row * kDepth + k]) * b[k * n + col];
      d[t][i] = static_cast<float>(sum);
    }
}
