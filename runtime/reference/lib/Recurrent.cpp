//===- Recurrent.cpp - The recurrent formulation --------------------------===//
//
// Token by token in phi space:
//   c_t = c_{t-1} + beta_t;  k'_t = R(c_t) k_t;  q'_t = R(c_t) scale q_t
//   S_t = gamma_t S_{t-1} + phi(k'_t) v_t^T;  Z_t = gamma_t Z_{t-1} + phi(k'_t)
//   y_t = S_t^T phi(q'_t) / (Z_t . phi(q'_t))
//
//===----------------------------------------------------------------------===//

#include "Formulations.h"
#include "sympow/Reference/Rotary.h"

#include <cmath>

namespace sympow::reference::detail {

void runRecurrent(const LayerDesc &desc, const LayerInputs &in,
                  const MultisetBasis &basis, LayerOutputs &out) {
  const Shape &sh = desc.shape;
  const int64_t T = sh.T, Hq = sh.Hq, H = sh.H, d = sh.d, e = sh.e;
  const int64_t group = Hq / H, D = basis.size();
  const double scale = desc.effectiveScale();
  const bool rotates = desc.schedule != Schedule::None;
  const std::vector<double> rates = rotaryRates(desc.rotary, d);

  std::vector<double> S(D * e), Z(D), fk(D), fq(D), kr(d), qs(d), qr(d);
  for (int64_t b = 0; b < sh.B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t bh = b * H + h;
      const State *init = in.initialState ? &*in.initialState : nullptr;
      for (int64_t m = 0; m < D * e; ++m)
        S[m] = init ? init->S.data[bh * D * e + m] : 0.0;
      for (int64_t m = 0; m < D; ++m)
        Z[m] = init ? init->Z.data[bh * D + m] : 0.0;
      double c = init ? init->c.data[bh] : 0.0;

      for (int64_t t = 0; t < T; ++t) {
        const int64_t bth = (b * T + t) * H + h;
        double logGate = (in.logG ? in.logG->data[bth] : 0.0) +
                         (in.logGamma ? in.logGamma->data[h] : 0.0);
        double gamma = std::exp(logGate);
        if (desc.schedule == Schedule::Uniform)
          c += 1.0;
        else if (desc.schedule == Schedule::Learned)
          c += in.beta->data[bth];

        const double *k = &in.k.data[bth * d];
        if (rotates)
          rotate<double>(desc.rotary, d, rates, c, k, kr.data());
        else
          kr.assign(k, k + d);
        embed(basis, kr.data(), fk.data());
        const double *v = &in.v.data[bth * e];
        for (int64_t m = 0; m < D; ++m) {
          Z[m] = gamma * Z[m] + fk[m];
          for (int64_t x = 0; x < e; ++x)
            S[m * e + x] = gamma * S[m * e + x] + fk[m] * v[x];
        }

        for (int64_t hq = h * group; hq < (h + 1) * group; ++hq) {
          const double *q = &in.q.data[((b * T + t) * Hq + hq) * d];
          for (int64_t x = 0; x < d; ++x)
            qs[x] = scale * q[x];
          if (rotates)
            rotate<double>(desc.rotary, d, rates, c, qs.data(), qr.data());
          else
            qr = qs;
          embed(basis, qr.data(), fq.data());
          double den = 0.0;
          double *y = &out.y.data[((b * T + t) * Hq + hq) * e];
          for (int64_t x = 0; x < e; ++x)
            y[x] = 0.0;
          for (int64_t m = 0; m < D; ++m) {
            den += Z[m] * fq[m];
            for (int64_t x = 0; x < e; ++x)
              y[x] += S[m * e + x] * fq[m];
          }
          for (int64_t x = 0; x < e; ++x)
            y[x] = den == 0.0 ? 0.0 : y[x] / den;
        }
      }

      if (out.finalState) {
        State &fs = *out.finalState;
        std::copy(S.begin(), S.end(), fs.S.data.begin() + bh * D * e);
        std::copy(Z.begin(), Z.end(), fs.Z.data.begin() + bh * D);
        fs.c.data[bh] = c;
      }
    }
  }
}

} // namespace sympow::reference::detail
