//===- GpuLimits.h - The CUDA limits every kernel keeps to ------*- C++ -*-===//
//
// One definition for the generators (compiler/lib/GPU), the runtime's
// kernel lists and the GPU model's estimates.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_GPULIMITS_H
#define SYMPOW_SUPPORT_GPULIMITS_H

#include <cstdint>

namespace sympow {

/// Static shared (workgroup) memory per block: every kernel's arrays are
/// static workgroup attributions, which CUDA caps at 48 KiB (more needs
/// dynamic shared memory and an opt-in per function).
constexpr int64_t kStaticSharedBytes = 48 * 1024;

/// The row stride, in elements, of a 16-bit array that ldmatrix reads:
/// `columns` rounded up to an odd number of 16-byte pieces, so that the
/// eight 16-byte rows of a matrix start in eight distinct groups of four
/// banks (an even number puts rows r and r + 4 on the same banks).
constexpr int64_t ldmatrixRowStride(int64_t columns) {
  return ((columns + 7) / 8 | 1) * 8;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_GPULIMITS_H
