"""An independent numpy f64 implementation of docs/SPEC.md (the attention
formulation, written directly from the SPEC, sharing no code with the C++
reference or the kernels), shared by the checks of sympow-run
(check_sympow_run.py) and of the Python package (test/Python).

`definition(case)` takes a dict: q [B,T,Hq,d], k [B,T,H,d], v [B,T,H,e]
(float64 arrays of the values given to the implementation under test), p,
schedule (none|uniform|learned|warped|blend), dtype (f32|bf16|f16: q, k, v
are rounded to it first), rope (dict base, scale, dims (0: d), layout
interleaved|half), and optionally log_g [B,T,H], log_gamma [H], beta
[B,T,H], scale, warp_length, initial (S0, Z0, c0) and final (truthy: also
return the final state). It returns (y, None) or (y, (S, Z, c)).
"""

import itertools
import math
from collections import Counter

import numpy as np


def round_inputs(x, dtype):
    """Round-to-nearest-even to the kernel input type."""
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    # bf16: 8 significant bits; frexp gives x = m 2^e with 0.5 <= |m| < 1
    # (random normal data stays in bf16's normal range).
    m, e = np.frexp(x)
    return np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)


def phi_basis(d, p):
    combos = list(itertools.combinations_with_replacement(range(d), p))
    coef = []
    for c in combos:
        n = math.factorial(p)
        for m in Counter(c).values():
            n //= math.factorial(m)
        coef.append(math.sqrt(n))
    return np.array(combos, dtype=np.int64), np.array(coef)


def phi(x, basis):
    combos, coef = basis
    return coef * np.prod(x[..., combos], axis=-1)


def rotate(x, count, rope):
    """R(count) x over the last axis; count broadcasts against x[..., 0]."""
    d = x.shape[-1]
    r = rope["dims"] or d
    j = np.arange(r // 2)
    theta = rope["scale"] * rope["base"] ** (-2.0 * j / r)
    if rope["layout"] == "interleaved":
        a, b = 2 * j, 2 * j + 1
    else:
        a, b = j, j + r // 2
    ang = np.asarray(count)[..., None] * theta
    out = np.array(x, dtype=np.float64, copy=True)
    xa, xb = x[..., a], x[..., b]
    out[..., a] = xa * np.cos(ang) - xb * np.sin(ang)
    out[..., b] = xa * np.sin(ang) + xb * np.cos(ang)
    return out


def warp(age, schedule, L):
    age = age.astype(np.float64)
    if schedule == "warped":
        return L * age / (age + L)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(age < L, age, L + L * (age - L) / age)


def definition(case):
    """y (and the final state) straight from SPEC's attention formulation."""
    q, k, v = case["q"], case["k"], case["v"]
    B, T, Hq, d = q.shape
    H, e = k.shape[2], v.shape[3]
    g = Hq // H
    p, sched = case["p"], case["schedule"]
    scale = case.get("scale", 1.0 / math.sqrt(d))
    q = round_inputs(q, case["dtype"])
    k = round_inputs(k, case["dtype"])
    v = round_inputs(v, case["dtype"])
    logsum = np.zeros((B, T, H))
    if "log_g" in case:
        logsum += case["log_g"]
    if "log_gamma" in case:
        logsum += case["log_gamma"][None, None, :]
    G = np.cumsum(logsum, axis=1)                      # [B, T, H]
    init = case.get("initial")
    c0 = init[2] if init is not None else np.zeros((B, H))
    if sched == "uniform":
        c = c0[:, None, :] + np.arange(1, T + 1)[None, :, None]
    elif sched == "learned":
        c = c0[:, None, :] + np.cumsum(case["beta"], axis=1)
    else:
        c = np.broadcast_to(c0[:, None, :], (B, T, H)).copy()
    basis = phi_basis(d, p) if init is not None or case.get("final") else None
    ii, jj = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    causal = jj <= ii
    y = np.zeros((B, T, Hq, e))
    for b in range(B):
        for hq in range(Hq):
            h = hq // g
            qs = scale * q[b, :, hq, :]                   # [T, d]
            if sched in ("uniform", "learned"):
                a = c[b, :, h][:, None] - c[b, :, h][None, :]
            elif sched in ("warped", "blend"):
                a = warp(np.maximum(ii - jj, 0), sched, case["warp_length"])
            else:
                a = np.zeros((T, T))
            qq = np.broadcast_to(qs[:, None, :], (T, T, d))
            rq = rotate(qq, a, case["rope"]) if sched != "none" else qq
            dots = np.einsum("ijx,jx->ij", rq, k[b, :, h, :])
            w = np.exp(G[b, :, h][:, None] - G[b, :, h][None, :])
            Bij = np.where(causal, w * dots ** p, 0.0)
            num = Bij @ v[b, :, h, :]
            den = Bij.sum(axis=1)
            if init is not None:
                qa = rotate(qs, c[b, :, h], case["rope"]) if sched != "none" else qs
                f = phi(qa, basis) * np.exp(G[b, :, h])[:, None]
                num = num + f @ init[0][b, h]
                den = den + f @ init[1][b, h]
            safe = np.where(den == 0, 1.0, den)
            y[b, :, hq, :] = np.where(den[:, None] == 0, 0.0, num / safe[:, None])
    if not case.get("final"):
        return y, None
    D = len(basis[1])
    S = np.zeros((B, H, D, e))
    Z = np.zeros((B, H, D))
    for b in range(B):
        for h in range(H):
            last = G[b, T - 1, h]
            if init is not None:
                S[b, h] = np.exp(last) * init[0][b, h]
                Z[b, h] = np.exp(last) * init[1][b, h]
            ka = k[b, :, h, :]
            if sched != "none":
                ka = rotate(ka, c[b, :, h], case["rope"])
            f = phi(ka, basis) * np.exp(last - G[b, :, h])[:, None]   # [T, D]
            S[b, h] += f.T @ v[b, :, h, :]
            Z[b, h] += f.sum(axis=0)
    return y, (S, Z, c[:, T - 1, :])


def random_state(rng, B, H, d, e, p):
    """A plausible state (S0, Z0, c0): sums of embedded keys with positive
    weights, so Z0 . phi(q) > 0."""
    basis = phi_basis(d, p)
    D = len(basis[1])
    S = np.zeros((B, H, D, e))
    Z = np.zeros((B, H, D))
    for _ in range(3):
        u = rng.standard_normal((B, H, d)) / math.sqrt(d)
        f = phi(u, basis) * rng.uniform(0.2, 1.0, (B, H, 1))
        S += f[..., None] * rng.standard_normal((B, H, 1, e))
        Z += f
    return S, Z, rng.uniform(0.0, 5.0, (B, H))
