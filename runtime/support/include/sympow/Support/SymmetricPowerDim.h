//===- SymmetricPowerDim.h - D = C(d + p - 1, p) ----------------*- C++ -*-===//
//
// The size of phi^p's space, the one definition every part uses: the
// dialect's verifiers, the kernel generators, the reference, the runtime's
// layer and state sizes, the cost model.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_SYMMETRICPOWERDIM_H
#define SYMPOW_SUPPORT_SYMMETRICPOWERDIM_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace sympow {

/// D = C(d + p - 1, p), the number of multisets of size p over d indices;
/// nullopt if d < 1, p < 0 or D does not fit in int64_t.
inline std::optional<int64_t> symmetricPowerDim(int64_t d, int64_t p) {
  if (d < 1 || p < 0)
    return std::nullopt;
  // C(d + p - 1, p) = C(d + p - 1, d - 1): built over the smaller of the
  // two, k, as prod_{i=1..k} (n - k + i) / i with n = d + p - 1; each
  // partial product is itself a binomial coefficient, so the division is
  // exact. The loop ends after at most ~64 steps once k > 2: C(n, i) >= 2^i
  // overflows int64 well before i reaches 64 (so no cost grows with p or d).
  if (d - 1 > std::numeric_limits<int64_t>::max() - p)
    return std::nullopt;
  int64_t n = d + p - 1, k = std::min<int64_t>(p, d - 1);
  unsigned __int128 result = 1;
  for (int64_t i = 1; i <= k; ++i) {
    result = result * static_cast<unsigned __int128>(n - k + i) / i;
    if (result >
        static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
  }
  return static_cast<int64_t>(result);
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_SYMMETRICPOWERDIM_H
