//===- WgmmaLayout.h - Where a wgmma operand's elements lie -----*- C++ -*-===//
//
// The canonical layouts of a wgmma operand in workgroup memory (PTX ISA,
// "Shared Memory Matrix Layout"; CUTLASS's GMMA layouts;
// docs/design/wgmma.md §2), written once over any integer-like type: the
// emulator evaluates them on numbers, the sm_80 lowering of the warpgroup
// MMA ops builds them as IR over lane-dependent indices.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_WGMMALAYOUT_H
#define SYMPOW_SUPPORT_WGMMALAYOUT_H

#include <cstdint>

namespace sympow::wgmma {

/// The byte offset from a matrix's start of its 2-byte element (mn, k),
/// k < 16, before the swizzle: K-major (each row's k in 16-byte units) or
/// MN-major, with the descriptor's `leading` and `stride` byte offsets and
/// its swizzle (0, 32, 64 or 128 bytes). `Ops` gives add, mul, div and rem
/// by constants on V.
template <typename V, typename Ops>
V unswizzledOffset(Ops &o, V mn, V k, bool mnMajor, int64_t leading,
                   int64_t stride, int64_t swizzle) {
  if (swizzle == 0) {
    // Core matrices of 8 x 16 bytes: `leading` steps K's, `stride` MN's.
    if (mnMajor)
      return o.add(o.add(o.mul(o.div(mn, 8), stride), o.mul(o.rem(mn, 8), 2)),
                   o.add(o.mul(o.rem(k, 8), 16), o.mul(o.div(k, 8), leading)));
    return o.add(o.add(o.mul(o.rem(mn, 8), 16), o.mul(o.div(mn, 8), stride)),
                 o.add(o.mul(o.div(k, 8), leading), o.mul(o.rem(k, 8), 2)));
  }
  // Rows of `swizzle` bytes, 8 to a pattern.
  if (mnMajor)
    return o.add(
        o.add(o.mul(o.rem(mn, swizzle / 2), 2),
              o.mul(o.div(mn, swizzle / 2), leading)),
        o.add(o.mul(o.rem(k, 8), swizzle), o.mul(o.div(k, 8), stride)));
  return o.add(o.add(o.mul(o.rem(mn, 8), swizzle), o.mul(o.div(mn, 8), stride)),
               o.mul(k, 2));
}

/// Swizzles a window `address` (cute's Swizzle<B, 4, 3>): the bits above
/// a pattern row's bytes (from bit 7) xor into its 16-byte unit index.
/// `Ops` gives shr, and and xor by constants, and shl, on V.
template <typename V, typename Ops>
V swizzled(Ops &o, V address, int64_t swizzle) {
  if (swizzle == 0)
    return address;
  return o.xorI(address, o.shl(o.andI(o.shr(address, 7), swizzle / 16 - 1), 4));
}

/// Ops on plain integers.
struct IntegerOps {
  int64_t add(int64_t a, int64_t b) { return a + b; }
  int64_t mul(int64_t a, int64_t c) { return a * c; }
  int64_t div(int64_t a, int64_t c) { return a / c; }
  int64_t rem(int64_t a, int64_t c) { return a % c; }
  int64_t shr(int64_t a, int64_t c) { return a >> c; }
  int64_t shl(int64_t a, int64_t c) { return a << c; }
  int64_t andI(int64_t a, int64_t c) { return a & c; }
  int64_t xorI(int64_t a, int64_t b) { return a ^ b; }
};

} // namespace sympow::wgmma

#endif // SYMPOW_SUPPORT_WGMMALAYOUT_H
