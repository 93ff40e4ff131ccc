//===- Bytes.h - Byte counts that cannot wrap -------------------*- C++ -*-===//
//
// Workspace and state sizes are products of the caller's B and T with the
// variant's dims. A size query with a huge B or T must report an error, not
// a small wrapped number, so these counts saturate at kTooManyBytes (which
// no allocation can satisfy) instead of overflowing.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_BYTES_H
#define SYMPOW_SUPPORT_BYTES_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace sympow {

constexpr size_t kTooManyBytes = SIZE_MAX;

/// The alignment of every workspace array and of the workspace itself.
constexpr size_t kBufferAlign = 256;

/// elementBytes times every extent, or kTooManyBytes when that overflows
/// (or an extent is negative).
inline size_t bytesOf(size_t elementBytes,
                      std::initializer_list<int64_t> extents) {
  size_t bytes = elementBytes;
  for (int64_t extent : extents)
    if (extent < 0 || __builtin_mul_overflow(bytes, size_t(extent), &bytes))
      return kTooManyBytes;
  return bytes;
}

inline size_t addBytes(size_t a, size_t b) {
  size_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kTooManyBytes : sum;
}

/// `bytes` rounded up to kBufferAlign.
inline size_t alignBytes(size_t bytes) {
  size_t padded = addBytes(bytes, kBufferAlign - 1);
  return padded == kTooManyBytes ? kTooManyBytes
                                 : padded / kBufferAlign * kBufferAlign;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_BYTES_H
