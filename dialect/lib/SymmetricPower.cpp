//===- SymmetricPower.cpp - Sizes of the symmetric power space ------------===//

#include "sympow/Dialect/SymmetricPower.h"

#include <limits>

std::optional<int64_t> sympow::symmetricPowerDim(int64_t d, int64_t p) {
  if (d < 1 || p < 0)
    return std::nullopt;
  // C(d + p - 1, p) built as prod_{i=1..p} (d - 1 + i) / i; each partial
  // product is itself a binomial coefficient, so the division is exact.
  unsigned __int128 result = 1;
  for (int64_t i = 1; i <= p; ++i) {
    result = result * static_cast<unsigned __int128>(d - 1 + i) / i;
    if (result >
        static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
  }
  return static_cast<int64_t>(result);
}
