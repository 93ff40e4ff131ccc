//===- Warpgroup.h - What a warpgroup MMA reads and computes ----*- C++ -*-===//
//
// Hopper's wgmma as the PTX ISA defines it (docs/design/wgmma.md): the
// 64-bit matrix descriptor, where element (mn, k) of an operand lies in
// workgroup memory under each canonical layout and swizzle, and the
// m64nNk16 product into the threads' accumulators. Pure functions, so
// they are unit-tested directly; Block.cpp reads the operands through
// them with its access checks.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_WARPGROUP_H
#define SYMPOW_EMULATOR_WARPGROUP_H

#include <cstdint>
#include <string>
#include <utility>

namespace sympow::emu::warpgroup {

inline constexpr unsigned kThreads = 128;
inline constexpr int kRows = 64;  // M
inline constexpr int kDepth = 16; // K of bf16/f16

/// The fields of a wgmma matrix descriptor, in bytes.
struct MatrixDescriptor {
  uint32_t start = 0; // address in the workgroup window
  uint32_t leading = 0, stride = 0;
  int swizzle = 0;    // 0 (none), 32, 64 or 128
  int baseOffset = 0; // bits 49-51
};

/// Decodes bits 0-13 (start >> 4), 16-29 (leading >> 4), 32-45 (stride
/// >> 4), 49-51 (base offset), 62-63 (0 none, 1 128 B, 2 64 B, 3 32 B).
MatrixDescriptor decode(uint64_t bits);

/// Empty if the emulator reads operands through `d`, else why not.
std::string unsupported(const MatrixDescriptor &d);

/// The window address of element (mn, k), k < 16, of a 2-byte operand read
/// through `d`: K-major (each row's K elements in 16-byte units) or
/// MN-major; the swizzle permutes the 16-byte units of each row of the
/// pattern by the address bits above them.
uint32_t elementAddress(const MatrixDescriptor &d, bool mnMajor, int mn, int k);

/// (row, column) of accumulator `i` of thread `thread` (0..127): warp w
/// takes rows 16w .. 16w + 15 in mma.sync's m16n8 layout, i / 4 picks the
/// 8 columns.
std::pair<int, int> accumulatorCoord(unsigned thread, int i);

/// (row, k) of element i (0..7) of thread `thread`'s A registers: the
/// accumulator pattern with 16 columns (mma.sync's m16n8k16 A fragment of
/// warp w's rows 16w .. 16w + 15).
std::pair<int, int> registerACoord(unsigned thread, int i);

/// D = A B (+ C) for a warpgroup: a is 64 x 16, b 16 x n, both row-major
/// floats as read; c[t] (null: no C) and d[t] point at thread t's n / 2
/// accumulators. Products of bf16/f16 are exact; each sum is rounded once
/// to f32 (mma.sync's model).
void multiply(int n, const float *a, const float *b,
              const float *const c[kThreads], float *const d[kThreads]);

} // namespace sympow::emu::warpgroup

#endif // SYMPOW_EMULATOR_WARPGROUP_H
