//===- ChunkScanSplit.h - How chunk_scan splits a state ---------*- C++ -*-===//
//
// chunk_scan walks the chunk states of each (head, sequence) once, parallel
// over the elements of the flattened [S | Z] state (D e values of S, then D
// of Z). How many elements a thread and a program take is one definition
// for the kernel generator (compiler/lib/GPU/ChunkScan.cpp) and the GPU
// model's estimates (runtime/layer/lib/KernelEstimates.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_CHUNKSCANSPLIT_H
#define SYMPOW_SUPPORT_CHUNKSCANSPLIT_H

#include <cstdint>

namespace sympow {

/// Thread t of a program takes elements [t R, t R + R) of the program's
/// `threads * perThread`; `programs` of them cover one head's D (e + 1).
struct ChunkScanSplit {
  int64_t threads = 256, perThread = 1, programs = 1;
  int64_t elementsPerProgram() const { return threads * perThread; }
};

/// One element per thread. Four (one 16-byte access per chunk, the decay
/// loaded once per four) is what the kernel can take when D is a multiple
/// of 4 (every run of four then lies in S or in Z at an offset that is a
/// multiple of four); tried at p = 2, d = e = 64 it took 90 registers
/// instead of 24 (the masked tile loads' per-element fallbacks), two blocks
/// per SM, and the model predicted it slower (70 vs 55 us at T = 4K), so it
/// waits for a leaner lowering of contiguous masked accesses.
/// At d = e = 64, p = 2: 529 programs per head.
inline ChunkScanSplit chunkScanSplit(int64_t dim, int64_t e) {
  ChunkScanSplit s;
  s.perThread = 1;
  int64_t elements = dim * (e + 1);
  s.programs = elements / s.elementsPerProgram() +
               (elements % s.elementsPerProgram() != 0);
  if (s.programs < 1)
    s.programs = 1;
  return s;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_CHUNKSCANSPLIT_H
