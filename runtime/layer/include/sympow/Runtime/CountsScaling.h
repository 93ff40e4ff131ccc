//===- CountsScaling.h - A launch's counts at a longer sequence -*- C++ -*-===//
//
// The emulator runs a kernel at a few thousand tokens in seconds, not at 64K.
// Every count of our kernels is a polynomial of degree at most 2 in T when
// T is a multiple of the kernel's tile (the chunk, the query block): linear
// for grids of equal blocks (the chunked kernels: N = T / C blocks of equal
// work; chunk_scan's block walks N chunks), quadratic for the causal
// attention grid (block i visits i + 1 key tiles). So counts at T0, 2 T0 and
// 4 T0 give the counts at any T exactly; a fourth size checks it
// (test/Perf, the sympow-bench scaling test).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_COUNTSSCALING_H
#define SYMPOW_RUNTIME_COUNTSSCALING_H

#include "sympow/Support/KernelCounts.h"

#include <array>
#include <string>

namespace sympow {

/// Launch counts of one kernel measured at three sequence lengths.
struct CountSamples {
  std::array<int64_t, 3> tokens;
  std::array<LaunchCounts, 3> counts;
};

/// The counts at `tokens`, from the quadratic through the samples in T (on
/// every count, the grid and the distinct bytes; the block, shared bytes
/// and the heaviest block's index are the last sample's). Returns false and
/// names the field in `error` when a value is not an integer polynomial
/// (the samples do not follow the law) or comes out negative.
bool extrapolateCounts(const CountSamples &samples, int64_t tokens,
                       LaunchCounts &out, std::string &error);

} // namespace sympow

#endif // SYMPOW_RUNTIME_COUNTSSCALING_H
