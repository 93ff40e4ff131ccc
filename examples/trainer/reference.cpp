#include "reference.h"

#include <cmath>

namespace {

/// The relative angle count between query i and key j.
double angleCount(const sympow_layer_desc &d, const std::vector<double> &c,
                  int64_t i, int64_t j) {
  double a = double(i - j), L = double(d.warp_length);
  switch (d.schedule) {
  case SYMPOW_SCHEDULE_UNIFORM:
  case SYMPOW_SCHEDULE_LEARNED:
    return c[i] - c[j];
  case SYMPOW_SCHEDULE_WARPED:
    return L * a / (a + L);
  case SYMPOW_SCHEDULE_BLEND:
    return a < L ? a : L + L * (a - L) / a;
  default:
    return 0;
  }
}

/// Rotates x (d values) by angle count `a`.
void rotate(const sympow_layer_desc &d, double a, std::vector<double> &x) {
  int64_t r = d.rope_dims ? d.rope_dims : d.head_dim;
  for (int64_t j = 0; j < r / 2; ++j) {
    double theta = d.rope_scale * std::pow(d.rope_base, -2.0 * j / r);
    int64_t u = d.rope_layout == SYMPOW_ROPE_HALF ? j : 2 * j;
    int64_t w = d.rope_layout == SYMPOW_ROPE_HALF ? j + r / 2 : 2 * j + 1;
    double cs = std::cos(a * theta), sn = std::sin(a * theta);
    double xu = x[u], xw = x[w];
    x[u] = xu * cs - xw * sn;
    x[w] = xu * sn + xw * cs;
  }
}

} // namespace

std::vector<double> referenceLayer(const sympow_layer_desc &d,
                                   const LayerInputs &in) {
  int64_t B = in.B, T = in.T, Hq = d.query_heads, H = d.kv_heads,
          D = d.head_dim, E = d.value_dim, group = Hq / H;
  double scale = d.scale ? d.scale : 1.0 / std::sqrt(double(D));
  std::vector<double> y(size_t(B * T * Hq * E), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t hq = 0; hq < Hq; ++hq) {
      int64_t h = hq / group;
      // Cumulative log gate G_t and angle count c_t of this head.
      std::vector<double> G(T), c(T);
      double g = 0, count = 0;
      for (int64_t t = 0; t < T; ++t) {
        size_t at = size_t((b * T + t) * H + h);
        if (d.has_log_g)
          g += in.logG[at];
        if (d.has_log_gamma)
          g += in.logGamma[h];
        G[t] = g;
        count += d.schedule == SYMPOW_SCHEDULE_LEARNED ? in.beta[at] : 1.0;
        c[t] = count;
      }
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> num(E, 0.0);
        double den = 0;
        for (int64_t j = 0; j <= i; ++j) {
          std::vector<double> q(D);
          for (int64_t x = 0; x < D; ++x)
            q[x] = in.q[size_t(((b * T + i) * Hq + hq) * D + x)];
          if (d.schedule != SYMPOW_SCHEDULE_NONE)
            rotate(d, angleCount(d, c, i, j), q);
          double dot = 0;
          for (int64_t x = 0; x < D; ++x)
            dot += q[x] * in.k[size_t(((b * T + j) * H + h) * D + x)];
          double weight =
              std::exp(G[i] - G[j]) * std::pow(scale * dot, double(d.power));
          den += weight;
          for (int64_t x = 0; x < E; ++x)
            num[x] += weight * in.v[size_t(((b * T + j) * H + h) * E + x)];
        }
        for (int64_t x = 0; x < E; ++x)
          y[size_t(((b * T + i) * Hq + hq) * E + x)] =
              den != 0 ? num[x] / den : 0.0;
      }
    }
  return y;
}
