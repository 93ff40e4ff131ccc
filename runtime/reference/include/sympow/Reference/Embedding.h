//===- Embedding.h - The symmetric power embedding phi^p --------*- C++ -*-===//
//
// Coordinates are the multisets i1 <= ... <= ip of {0..d-1} in lexicographic
// order; phi(x)[i1..ip] = sqrt(p! / prod_k m_k!) x_i1 ... x_ip, so that
// phi(x) . phi(y) = (x . y)^p exactly.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_EMBEDDING_H
#define SYMPOW_REFERENCE_EMBEDDING_H

#include "sympow/Reference/Status.h"

#include <cstdint>
#include <vector>

namespace sympow::reference {

/// D = C(d + p - 1, p), or -1 if it does not fit in int64_t (or d < 1, p < 1).
int64_t symPowerDim(int64_t d, int p);

/// The multiset basis of Sym^p(R^d) in SPEC order.
struct MultisetBasis {
  int64_t d = 0;
  int p = 0;
  /// D rows of p indices each, nondecreasing within a row.
  std::vector<int32_t> indices;
  /// sqrt(p! / prod_k m_k!) per row.
  std::vector<double> coefficients;

  int64_t size() const { return static_cast<int64_t>(coefficients.size()); }
};

/// Fails if D is too large to enumerate (more than `maxSize` rows).
Result<MultisetBasis> makeMultisetBasis(int64_t d, int p,
                                        int64_t maxSize = int64_t(1) << 26);

/// out[0..D) = phi^p(x), x of length basis.d.
void embed(const MultisetBasis &basis, const double *x, double *out);
std::vector<double> embed(const MultisetBasis &basis,
                          const std::vector<double> &x);

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_EMBEDDING_H
