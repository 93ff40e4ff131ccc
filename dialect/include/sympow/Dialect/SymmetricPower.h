//===- SymmetricPower.h - Sizes of the symmetric power space ----*- C++ -*-===//
//
// Shared by the verifiers, the compiler and the tools: one definition of the
// embedding size D = C(d + p - 1, p) and of which powers are allowed.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_DIALECT_SYMMETRICPOWER_H
#define SYMPOW_DIALECT_SYMMETRICPOWER_H

#include <cstdint>
#include <optional>

#include "sympow/Support/LayerRules.h"
#include "sympow/Support/SymmetricPowerDim.h"

namespace sympow {

/// p is an even integer >= 2: odd powers give scores that are not a
/// distribution (SPEC, "Symmetric power embedding").
/// The powers the compiler supports: even, 2 <= p <= rules::kMaxPower (the
/// rule every entry point shares, sympow/Support/LayerRules.h).
inline bool isSupportedPower(int64_t p) {
  return !rules::checkPower(p).has_value();
}

} // namespace sympow

#endif // SYMPOW_DIALECT_SYMMETRICPOWER_H
