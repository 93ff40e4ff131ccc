//===- Chunked.cpp - The chunked formulation ------------------------------===//
//
// Chunks of C tokens. With L_t the log gate summed from the chunk start and
// (S, Z) the state before the chunk, for i in the chunk:
//   num_i = exp(L_i) phi(q'_i)^T S + sum_{j in chunk, j<=i} exp(L_i - L_j)
//           (q'_i . k'_j)^p v_j                       (den: Z and 1 for v_j)
// and after the chunk, with L = L_last:
//   S <- exp(L) S + sum_j exp(L - L_j) phi(k'_j) v_j^T
// q' and k' are rotated by the absolute count c_t, the frame the state lives
// in.
//
//===----------------------------------------------------------------------===//

#include "AutoDiff.h"
#include "Formulations.h"
#include "sympow/Reference/Rotary.h"

#include <algorithm>
#include <cmath>

namespace sympow::reference::detail {

void runChunked(const LayerDesc &desc, const LayerInputs &in,
                const MultisetBasis &basis, LayerOutputs &out) {
  const Shape &sh = desc.shape;
  const int64_t T = sh.T, Hq = sh.Hq, H = sh.H, d = sh.d, e = sh.e;
  const int64_t group = Hq / H, D = basis.size(), C = desc.chunkSize;
  const double scale = desc.effectiveScale();
  const bool rotates = desc.schedule != Schedule::None;
  const std::vector<double> rates = rotaryRates(desc.rotary, d);

  std::vector<double> S(D * e), Z(D), f(D), qs(d), qa(d);
  // C may be far larger than T; the buffers only need one real chunk.
  const int64_t span = std::min(C, T);
  std::vector<double> L(span), ka(span * d);
  for (int64_t b = 0; b < sh.B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t bh = b * H + h;
      const State *init = in.initialState ? &*in.initialState : nullptr;
      for (int64_t m = 0; m < D * e; ++m)
        S[m] = init ? init->S.data[bh * D * e + m] : 0.0;
      for (int64_t m = 0; m < D; ++m)
        Z[m] = init ? init->Z.data[bh * D + m] : 0.0;
      double c = init ? init->c.data[bh] : 0.0;

      for (int64_t t0 = 0; t0 < T; t0 += C) {
        const int64_t n = std::min(C, T - t0);
        std::vector<double> counts(n);
        double acc = 0.0;
        for (int64_t u = 0; u < n; ++u) {
          const int64_t bth = (b * T + t0 + u) * H + h;
          acc += saturateLogGate((in.logG ? in.logG->data[bth] : 0.0) +
                                 (in.logGamma ? in.logGamma->data[h] : 0.0));
          L[u] = acc;
          if (desc.schedule == Schedule::Uniform)
            c += 1.0;
          else if (desc.schedule == Schedule::Learned)
            c += in.beta->data[bth];
          counts[u] = c;
          const double *k = &in.k.data[bth * d];
          if (rotates)
            rotate<double>(desc.rotary, d, rates, c, k, &ka[u * d]);
          else
            std::copy(k, k + d, &ka[u * d]);
        }

        for (int64_t hq = h * group; hq < (h + 1) * group; ++hq) {
          for (int64_t u = 0; u < n; ++u) {
            const int64_t t = t0 + u;
            const double *q = &in.q.data[((b * T + t) * Hq + hq) * d];
            for (int64_t x = 0; x < d; ++x)
              qs[x] = scale * q[x];
            if (rotates)
              rotate<double>(desc.rotary, d, rates, counts[u], qs.data(),
                             qa.data());
            else
              qa = qs;
            double *y = &out.y.data[((b * T + t) * Hq + hq) * e];
            // Across chunks: the state.
            embed(basis, qa.data(), f.data());
            double w = std::exp(L[u]), den = 0.0;
            for (int64_t x = 0; x < e; ++x)
              y[x] = 0.0;
            for (int64_t m = 0; m < D; ++m) {
              den += w * Z[m] * f[m];
              for (int64_t x = 0; x < e; ++x)
                y[x] += w * S[m * e + x] * f[m];
            }
            // Inside the chunk: attention.
            for (int64_t j = 0; j <= u; ++j) {
              double dot = 0.0;
              for (int64_t x = 0; x < d; ++x)
                dot += qa[x] * ka[j * d + x];
              double bij = std::exp(L[u] - L[j]) * ipow(dot, desc.power);
              den += bij;
              const double *v = &in.v.data[((b * T + t0 + j) * H + h) * e];
              for (int64_t x = 0; x < e; ++x)
                y[x] += bij * v[x];
            }
            for (int64_t x = 0; x < e; ++x)
              y[x] = den == 0.0 ? 0.0 : y[x] / den;
          }
        }

        // Carry the state over the chunk.
        double decay = std::exp(L[n - 1]);
        for (int64_t m = 0; m < D; ++m) {
          Z[m] *= decay;
          for (int64_t x = 0; x < e; ++x)
            S[m * e + x] *= decay;
        }
        for (int64_t j = 0; j < n; ++j) {
          embed(basis, &ka[j * d], f.data());
          double w = std::exp(L[n - 1] - L[j]);
          const double *v = &in.v.data[((b * T + t0 + j) * H + h) * e];
          for (int64_t m = 0; m < D; ++m) {
            Z[m] += w * f[m];
            for (int64_t x = 0; x < e; ++x)
              S[m * e + x] += w * f[m] * v[x];
          }
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
