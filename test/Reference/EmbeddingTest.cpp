//===- EmbeddingTest.cpp - phi^p order, scaling and identities ------------===//

#include "sympow/Reference/Embedding.h"
#include "TestUtil.h"
#include "sympow/Reference/Rotary.h"

#include <algorithm>

using namespace sympow::reference;
using namespace sympow::reference::test;

TEST(Embedding, DimensionMatchesSpec) {
  EXPECT_EQ(symPowerDim(64, 2), 2080);
  EXPECT_EQ(symPowerDim(64, 4), 766480);
  EXPECT_EQ(symPowerDim(3, 2), 6);
  EXPECT_EQ(symPowerDim(1, 6), 1);
  EXPECT_EQ(symPowerDim(0, 2), -1);
  EXPECT_EQ(symPowerDim(1000000, 40), -1); // overflow is reported, not UB
}

TEST(Embedding, OrderAndScalingForD3P2) {
  MultisetBasis b = makeMultisetBasis(3, 2).value();
  std::vector<int32_t> want = {0, 0, 0, 1, 0, 2, 1, 1, 1, 2, 2, 2};
  EXPECT_EQ(b.indices, want);
  double r2 = std::sqrt(2.0);
  std::vector<double> coef = {1, r2, r2, 1, r2, 1};
  ASSERT_EQ(b.coefficients.size(), coef.size());
  for (size_t i = 0; i < coef.size(); ++i)
    EXPECT_DOUBLE_EQ(b.coefficients[i], coef[i]);
  // phi([1,2,3]) = [1, 2 r2, 3 r2, 4, 6 r2, 9].
  std::vector<double> f = embed(b, std::vector<double>{1, 2, 3});
  std::vector<double> fw = {1, 2 * r2, 3 * r2, 4, 6 * r2, 9};
  for (size_t i = 0; i < fw.size(); ++i)
    EXPECT_NEAR(f[i], fw[i], 1e-14);
}

TEST(Embedding, RowsAreSortedMultisetsInLexOrder) {
  for (int p : {2, 4, 6}) {
    MultisetBasis b = makeMultisetBasis(4, p).value();
    ASSERT_EQ(b.size(), symPowerDim(4, p));
    std::vector<int32_t> prev;
    for (int64_t r = 0; r < b.size(); ++r) {
      std::vector<int32_t> row(b.indices.begin() + r * p,
                               b.indices.begin() + (r + 1) * p);
      EXPECT_TRUE(std::is_sorted(row.begin(), row.end()));
      if (r) {
        EXPECT_TRUE(prev < row) << "row " << r << " out of order, p=" << p;
      }
      prev = row;
    }
  }
}

TEST(Embedding, DotProductIsPowerOfDot) {
  Rng rng(7);
  for (int p : {2, 4, 6}) {
    for (int64_t d : {1, 3, 5}) {
      MultisetBasis b = makeMultisetBasis(d, p).value();
      for (int trial = 0; trial < 5; ++trial) {
        std::vector<double> x(d), y(d);
        for (int64_t i = 0; i < d; ++i) {
          x[i] = rng.normal();
          y[i] = rng.normal();
        }
        std::vector<double> fx = embed(b, x), fy = embed(b, y);
        double lhs = 0, dot = 0, nx = 0, ny = 0;
        for (size_t i = 0; i < fx.size(); ++i)
          lhs += fx[i] * fy[i];
        for (int64_t i = 0; i < d; ++i) {
          dot += x[i] * y[i];
          nx += x[i] * x[i];
          ny += y[i] * y[i];
        }
        double rhs = std::pow(dot, p);
        double tol = 1e-12 * std::pow(std::sqrt(nx * ny), p);
        EXPECT_NEAR(lhs, rhs, tol) << "p=" << p << " d=" << d;
      }
    }
  }
}

/// R-bar on Sym^p built entry by entry from R: with N_a = p!/prod m!,
/// Rbar[a][b] = sqrt(N_b / N_a) sum over distinct orderings s of row a of
/// prod_k R[s_k][b_k].
static std::vector<double> inducedRotation(const MultisetBasis &basis,
                                           const std::vector<double> &R) {
  const int p = basis.p;
  const int64_t D = basis.size(), d = basis.d;
  std::vector<double> Rbar(D * D, 0.0);
  for (int64_t a = 0; a < D; ++a) {
    for (int64_t b = 0; b < D; ++b) {
      std::vector<int32_t> s(basis.indices.begin() + a * p,
                             basis.indices.begin() + (a + 1) * p);
      const int32_t *t = &basis.indices[b * p];
      double sum = 0.0;
      do {
        double prod = 1.0;
        for (int k = 0; k < p; ++k)
          prod *= R[s[k] * d + t[k]];
        sum += prod;
      } while (std::next_permutation(s.begin(), s.end()));
      double na = basis.coefficients[a] * basis.coefficients[a];
      double nb = basis.coefficients[b] * basis.coefficients[b];
      Rbar[a * D + b] = std::sqrt(nb / na) * sum;
    }
  }
  return Rbar;
}

TEST(Embedding, RotationInducesOrthogonalMapOnPhi) {
  Rng rng(11);
  const int64_t d = 4;
  for (int p : {2, 4}) {
    for (RotaryLayout layout :
         {RotaryLayout::Interleaved, RotaryLayout::Half}) {
      for (int64_t r : {2, 4}) {
        RotaryConfig cfg;
        cfg.base = 50.0;
        cfg.rateScale = 1.3;
        cfg.dims = r;
        cfg.layout = layout;
        double count = 2.7;
        // R column by column: R e_m.
        std::vector<double> R(d * d);
        for (int64_t m = 0; m < d; ++m) {
          std::vector<double> unit(d, 0.0);
          unit[m] = 1.0;
          std::vector<double> col = rotate(cfg, unit, count);
          for (int64_t i = 0; i < d; ++i)
            R[i * d + m] = col[i];
        }
        MultisetBasis basis = makeMultisetBasis(d, p).value();
        const int64_t D = basis.size();
        std::vector<double> Rbar = inducedRotation(basis, R);
        // Rbar^T Rbar = I.
        double worst = 0.0;
        for (int64_t i = 0; i < D; ++i)
          for (int64_t j = 0; j < D; ++j) {
            double s = 0.0;
            for (int64_t k = 0; k < D; ++k)
              s += Rbar[k * D + i] * Rbar[k * D + j];
            worst = std::max(worst, std::fabs(s - (i == j ? 1.0 : 0.0)));
          }
        EXPECT_LT(worst, 1e-12) << "p=" << p << " r=" << r;
        // phi(R x) = Rbar phi(x).
        for (int trial = 0; trial < 3; ++trial) {
          std::vector<double> x(d);
          for (double &xi : x)
            xi = rng.normal();
          std::vector<double> lhs = embed(basis, rotate(cfg, x, count));
          std::vector<double> fx = embed(basis, x);
          for (int64_t i = 0; i < D; ++i) {
            double rhs = 0.0;
            for (int64_t k = 0; k < D; ++k)
              rhs += Rbar[i * D + k] * fx[k];
            EXPECT_NEAR(lhs[i], rhs, 1e-11) << "p=" << p << " i=" << i;
          }
        }
      }
    }
  }
}

TEST(Rotary, PairsAndRates) {
  RotaryConfig cfg;
  cfg.base = 16.0;
  cfg.rateScale = 2.0;
  cfg.dims = 4;
  std::vector<double> rates = rotaryRates(cfg, 6);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_DOUBLE_EQ(rates[0], 2.0);
  EXPECT_DOUBLE_EQ(rates[1], 2.0 / 4.0); // 16^(-2/4) = 1/4
  EXPECT_EQ(rotaryPair(cfg, 6, 1), std::make_pair(int64_t(2), int64_t(3)));
  cfg.layout = RotaryLayout::Half;
  EXPECT_EQ(rotaryPair(cfg, 6, 1), std::make_pair(int64_t(1), int64_t(3)));
  // Half layout, count 1: pair (0,2) turns by 2 rad, (1,3) by 0.5 rad,
  // dims 4 and 5 stay.
  std::vector<double> x = {1, 0, 0, 1, 7, 8};
  std::vector<double> y = rotate(cfg, x, 1.0);
  EXPECT_NEAR(y[0], std::cos(2.0), 1e-15);
  EXPECT_NEAR(y[2], std::sin(2.0), 1e-15);
  EXPECT_NEAR(y[1], -std::sin(0.5), 1e-15);
  EXPECT_NEAR(y[3], std::cos(0.5), 1e-15);
  EXPECT_EQ(y[4], 7.0);
  EXPECT_EQ(y[5], 8.0);
}

TEST(Rotary, WarpCounts) {
  EXPECT_DOUBLE_EQ(warpCount(Schedule::Warped, 2.0, 2), 1.0);
  EXPECT_DOUBLE_EQ(warpCount(Schedule::Warped, 4.0, 0), 0.0);
  EXPECT_DOUBLE_EQ(warpCount(Schedule::Blend, 4.0, 3), 3.0);
  EXPECT_DOUBLE_EQ(warpCount(Schedule::Blend, 4.0, 4), 4.0);
  EXPECT_DOUBLE_EQ(warpCount(Schedule::Blend, 2.0, 6), 2.0 + 2.0 * 4.0 / 6.0);
}
