//===- Coalescing.cpp - What one warp-wide memory access costs ------------===//
//
// Called for every warp access the emulator counts, so neither function
// allocates: a bitmap of sectors near the first one, fixed per-bank lists.
//
//===----------------------------------------------------------------------===//

#include "Coalescing.h"

#include <algorithm>
#include <bitset>
#include <vector>

using namespace sympow::emu;

uint64_t coalescing::globalSectors(const LaneAccess *lanes, size_t count) {
  constexpr int64_t kWindow = 256; // sectors a bitmap covers
  std::bitset<kWindow> near;
  std::vector<int64_t> far; // sectors outside the window (rare)
  int64_t base = INT64_MIN;
  for (size_t i = 0; i < count; ++i) {
    if (lanes[i].bytes <= 0)
      continue;
    int64_t first = lanes[i].addr >> 5;
    int64_t last = (lanes[i].addr + lanes[i].bytes - 1) >> 5;
    if (base == INT64_MIN)
      base = first - kWindow / 2;
    for (int64_t s = first; s <= last; ++s) {
      if (s >= base && s < base + kWindow)
        near.set(size_t(s - base));
      else
        far.push_back(s);
    }
  }
  std::sort(far.begin(), far.end());
  return near.count() + (std::unique(far.begin(), far.end()) - far.begin());
}

uint64_t coalescing::sharedWavefronts(const LaneAccess *lanes, size_t count) {
  constexpr int kBanks = 32;
  int64_t widest = 4;
  for (size_t i = 0; i < count; ++i)
    widest = std::max(widest, lanes[i].bytes);
  // Lanes per phase: 128 bytes over the widest access, a power of two.
  unsigned lanesPerPhase = 32;
  while (lanesPerPhase > 1 && int64_t(lanesPerPhase) * widest > 128)
    lanesPerPhase /= 2;
  // A phase of 32 lanes of at most 4 bytes touches at most 64 words (two
  // per lane when misaligned); wider lanes are fewer per phase.
  constexpr int kMostWords = 64;
  uint64_t wavefronts = 0;
  for (unsigned phase = 0; phase < 32; phase += lanesPerPhase) {
    int64_t words[kBanks][kMostWords];
    int perBank[kBanks] = {};
    int most = 0;
    for (size_t i = 0; i < count; ++i) {
      const LaneAccess &a = lanes[i];
      if (a.lane < phase || a.lane >= phase + lanesPerPhase || a.bytes <= 0)
        continue;
      for (int64_t w = a.addr >> 2; w <= (a.addr + a.bytes - 1) >> 2; ++w) {
        int bank = int(w & (kBanks - 1));
        int64_t *list = words[bank];
        int n = perBank[bank];
        if (std::find(list, list + n, w) != list + n || n == kMostWords)
          continue;
        list[n] = w;
        most = std::max(most, perBank[bank] = n + 1);
      }
    }
    wavefronts += uint64_t(most);
  }
  return wavefronts;
}
