//===- Embedding.cpp - The symmetric power embedding phi^p ----------------===//

#include "sympow/Reference/Embedding.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include <cmath>
#include <limits>

namespace sympow::reference {

int64_t symPowerDim(int64_t d, int p) {
  if (p < 1)
    return -1;
  return symmetricPowerDim(d, p).value_or(-1);
}

/// p! / prod_k m_k! for a sorted row, as a product of binomials (exact while
/// it fits in a double's 53 bits, which covers every D we can enumerate).
static double multinomial(const int32_t *row, int p) {
  double result = 1.0;
  int placed = 0;
  int i = 0;
  while (i < p) {
    int j = i;
    while (j < p && row[j] == row[i])
      ++j;
    int m = j - i;
    // Multiply by C(placed + m, m).
    for (int t = 1; t <= m; ++t)
      result = result * (placed + t) / t;
    placed += m;
    i = j;
  }
  return result;
}

Result<MultisetBasis> makeMultisetBasis(int64_t d, int p, int64_t maxSize) {
  if (d < 1 || p < 1)
    return Status::error("phi^p needs d >= 1 and p >= 1, got d = " +
                         std::to_string(d) + ", p = " + std::to_string(p));
  int64_t D = symPowerDim(d, p);
  if (D < 0 || D > maxSize)
    return Status::error("phi^p dimension C(d+p-1, p) for d = " +
                         std::to_string(d) + ", p = " + std::to_string(p) +
                         " is too large for the reference (limit " +
                         std::to_string(maxSize) + ")");
  MultisetBasis basis;
  basis.d = d;
  basis.p = p;
  basis.indices.reserve(static_cast<size_t>(D) * p);
  basis.coefficients.reserve(static_cast<size_t>(D));
  // Odometer over nondecreasing rows, last index fastest: lexicographic.
  std::vector<int32_t> row(p, 0);
  while (true) {
    basis.indices.insert(basis.indices.end(), row.begin(), row.end());
    basis.coefficients.push_back(std::sqrt(multinomial(row.data(), p)));
    int pos = p - 1;
    while (pos >= 0 && row[pos] == d - 1)
      --pos;
    if (pos < 0)
      break;
    int32_t next = row[pos] + 1;
    for (int i = pos; i < p; ++i)
      row[i] = next;
  }
  return basis;
}

void embed(const MultisetBasis &basis, const double *x, double *out) {
  const int p = basis.p;
  for (int64_t row = 0; row < basis.size(); ++row) {
    double prod = basis.coefficients[row];
    const int32_t *idx = &basis.indices[static_cast<size_t>(row) * p];
    for (int i = 0; i < p; ++i)
      prod *= x[idx[i]];
    out[row] = prod;
  }
}

std::vector<double> embed(const MultisetBasis &basis,
                          const std::vector<double> &x) {
  std::vector<double> out(static_cast<size_t>(basis.size()));
  embed(basis, x.data(), out.data());
  return out;
}

} // namespace sympow::reference
