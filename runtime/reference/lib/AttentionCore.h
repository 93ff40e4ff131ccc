//===- AttentionCore.h - The SPEC definition, templated on the scalar -----===//
//
// The attention formulation exactly as SPEC.md writes it:
//   B_ij = exp(G_i - G_j) (scale (R(a_ij) q_i) . k_j)^p, j <= i
//   y_i  = sum_j B_ij v_j / sum_j B_ij   (+ initial-state terms; 0 if the
//          denominator is 0)
// and the final state as the closed-form sum the recurrence unrolls to.
// Templated so that f64 forward and the autodiff backward are one code path.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_LIB_ATTENTIONCORE_H
#define SYMPOW_REFERENCE_LIB_ATTENTIONCORE_H

#include "AutoDiff.h"
#include "sympow/Reference/Embedding.h"
#include "sympow/Reference/Layer.h"
#include "sympow/Reference/Rotary.h"

#include <cmath>
#include <vector>

namespace sympow::reference::detail {

/// Input pointers into contiguous row-major buffers; optional ones may be
/// null. q, k, v are already rounded to the input type.
template <typename S> struct CoreInputs {
  const S *q = nullptr, *k = nullptr, *v = nullptr;
  const S *logG = nullptr, *logGamma = nullptr, *beta = nullptr;
  const S *S0 = nullptr, *Z0 = nullptr, *c0 = nullptr;
};

/// Output buffers; the state ones are null when no final state is wanted.
template <typename S> struct CoreOutputs {
  S *y = nullptr;
  S *finalS = nullptr, *finalZ = nullptr, *finalC = nullptr;
};

/// phi^p(x) with the scalar type S.
template <typename S>
void embedAs(const MultisetBasis &basis, const S *x, S *out) {
  for (int64_t row = 0; row < basis.size(); ++row) {
    const int32_t *idx = &basis.indices[static_cast<size_t>(row) * basis.p];
    S prod = x[idx[0]];
    for (int i = 1; i < basis.p; ++i)
      prod = prod * x[idx[i]];
    out[row] = prod * basis.coefficients[row];
  }
}

/// `basis` is needed (non-null) only with an initial or final state.
template <typename S>
void attentionCore(const LayerDesc &desc, const MultisetBasis *basis,
                   const CoreInputs<S> &in, const CoreOutputs<S> &out) {
  using std::exp;
  const Shape &sh = desc.shape;
  const int64_t B = sh.B, T = sh.T, Hq = sh.Hq, H = sh.H, d = sh.d, e = sh.e;
  const int64_t group = Hq / H;
  const int p = desc.power;
  const double scale = desc.effectiveScale();
  const Schedule sched = desc.schedule;
  const bool absolute =
      sched == Schedule::Uniform || sched == Schedule::Learned;
  const std::vector<double> rates = rotaryRates(desc.rotary, d);
  const int64_t D = basis ? basis->size() : 0;

  std::vector<S> G(T), c(T), qs(d), rq(d), f(D), num(e);
  auto kAt = [&](int64_t b, int64_t t, int64_t h) {
    return in.k + ((b * T + t) * H + h) * d;
  };
  auto vAt = [&](int64_t b, int64_t t, int64_t h) {
    return in.v + ((b * T + t) * H + h) * e;
  };

  // G_t and c_t of one (b, h).
  auto prefixes = [&](int64_t b, int64_t h) {
    S g = 0.0;
    S cnt = in.c0 ? in.c0[b * H + h] : S(0.0);
    for (int64_t t = 0; t < T; ++t) {
      int64_t bth = (b * T + t) * H + h;
      if (in.logG || in.logGamma) {
        S gate = 0.0;
        if (in.logG)
          gate = gate + in.logG[bth];
        if (in.logGamma)
          gate = gate + in.logGamma[h];
        g = g + saturateLogGate(gate);
      }
      G[t] = g;
      if (sched == Schedule::Uniform)
        cnt = cnt + 1.0;
      else if (sched == Schedule::Learned)
        cnt = cnt + in.beta[bth];
      c[t] = cnt;
    }
  };

  for (int64_t b = 0; b < B; ++b) {
    for (int64_t hq = 0; hq < Hq; ++hq) {
      const int64_t h = hq / group;
      prefixes(b, h);
      for (int64_t i = 0; i < T; ++i) {
        const S *q = in.q + ((b * T + i) * Hq + hq) * d;
        for (int64_t x = 0; x < d; ++x)
          qs[x] = q[x] * scale;
        for (int64_t x = 0; x < e; ++x)
          num[x] = 0.0;
        S den = 0.0;

        if (in.S0) {
          // exp(G_i) phi(scale R(c_i) q_i) . S0 (and . Z0).
          if (absolute)
            rotate<S>(desc.rotary, d, rates, c[i], qs.data(), rq.data());
          else
            rq = qs;
          embedAs(*basis, rq.data(), f.data());
          S w = exp(G[i]);
          const S *S0 = in.S0 + (b * H + h) * D * e;
          const S *Z0 = in.Z0 + (b * H + h) * D;
          for (int64_t m = 0; m < D; ++m) {
            S wf = w * f[m];
            den = den + wf * Z0[m];
            for (int64_t x = 0; x < e; ++x)
              num[x] = num[x] + wf * S0[m * e + x];
          }
        }

        for (int64_t j = 0; j <= i; ++j) {
          if (sched == Schedule::None) {
            rq = qs;
          } else {
            S a = absolute ? c[i] - c[j]
                           : S(warpCount(sched, *desc.warpLength, i - j));
            rotate<S>(desc.rotary, d, rates, a, qs.data(), rq.data());
          }
          const S *k = kAt(b, j, h);
          S dot = 0.0;
          for (int64_t x = 0; x < d; ++x)
            dot = dot + rq[x] * k[x];
          S bij = exp(G[i] - G[j]) * ipow(dot, p);
          den = den + bij;
          const S *v = vAt(b, j, h);
          for (int64_t x = 0; x < e; ++x)
            num[x] = num[x] + bij * v[x];
        }

        S *y = out.y + ((b * T + i) * Hq + hq) * e;
        for (int64_t x = 0; x < e; ++x)
          y[x] = valueOf(den) == 0.0 ? S(0.0) : num[x] / den;
      }
    }
  }

  if (!out.finalS)
    return;
  // S_T = exp(G_T) S0 + sum_j exp(G_T - G_j) phi(R(c_j) k_j) v_j^T, likewise
  // Z_T; c_T is the count after the last token.
  std::vector<S> rk(d);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      prefixes(b, h);
      S *Sf = out.finalS + (b * H + h) * D * e;
      S *Zf = out.finalZ + (b * H + h) * D;
      S Glast = T ? G[T - 1] : S(0.0);
      S w0 = exp(Glast);
      for (int64_t m = 0; m < D; ++m) {
        Zf[m] = in.Z0 ? w0 * in.Z0[(b * H + h) * D + m] : S(0.0);
        for (int64_t x = 0; x < e; ++x)
          Sf[m * e + x] =
              in.S0 ? w0 * in.S0[((b * H + h) * D + m) * e + x] : S(0.0);
      }
      for (int64_t j = 0; j < T; ++j) {
        if (absolute)
          rotate<S>(desc.rotary, d, rates, c[j], kAt(b, j, h), rk.data());
        else
          rk.assign(kAt(b, j, h), kAt(b, j, h) + d);
        embedAs(*basis, rk.data(), f.data());
        S w = exp(Glast - G[j]);
        const S *v = vAt(b, j, h);
        for (int64_t m = 0; m < D; ++m) {
          S wf = w * f[m];
          Zf[m] = Zf[m] + wf;
          for (int64_t x = 0; x < e; ++x)
            Sf[m * e + x] = Sf[m * e + x] + wf * v[x];
        }
      }
      out.finalC[b * H + h] =
          T ? c[T - 1] : (in.c0 ? in.c0[b * H + h] : S(0.0));
    }
  }
}

} // namespace sympow::reference::detail

#endif // SYMPOW_REFERENCE_LIB_ATTENTIONCORE_H
