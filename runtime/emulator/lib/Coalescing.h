//===- Coalescing.h - What one warp-wide memory access costs ----*- C++ -*-===//
//
// A warp's memory instruction is served as a whole: global memory in 32-byte
// sectors, workgroup memory in wavefronts (one pass over the 32 four-byte
// banks). These are the figures Nsight Compute reports as sectors and
// wavefronts; the emulator counts them so that a missed coalescing or a bank
// conflict shows without a GPU. Pure functions over the lanes' addresses,
// unit-tested directly (test/Emulator/CoalescingTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_COALESCING_H
#define SYMPOW_EMULATOR_COALESCING_H

#include <cstddef>
#include <cstdint>

namespace sympow::emu::coalescing {

/// One lane's part of a warp-wide access: `bytes` at `addr`. For workgroup
/// memory `addr` is the offset in the block's buffer (128-byte aligned on
/// the GPU, so banks follow from it).
struct LaneAccess {
  unsigned lane; // 0..31
  int64_t addr;
  int64_t bytes;
};

/// The distinct 32-byte sectors the lanes touch.
uint64_t globalSectors(const LaneAccess *lanes, size_t count);

/// The wavefronts of a workgroup access. The lanes are split into phases of
/// at most 128 bytes by their access width (all 32 lanes up to 4 bytes, 16
/// lanes for 8 bytes, 8 for 16); in a phase, a bank serves one 32-bit word
/// per wavefront (lanes reading the same word share it), so the phase takes
/// as many wavefronts as its most requested bank has distinct words.
uint64_t sharedWavefronts(const LaneAccess *lanes, size_t count);

} // namespace sympow::emu::coalescing

#endif // SYMPOW_EMULATOR_COALESCING_H
