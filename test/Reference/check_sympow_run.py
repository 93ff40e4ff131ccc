#!/usr/bin/env python3
"""Checks `sympow-run` against an independent numpy f64 implementation of
the SPEC definition (attention form, written directly from SPEC.md, sharing
no code with the C++ reference or the kernels).

usage: check_sympow_run.py PATH/TO/sympow-run [--backend reference|emulator]

The reference backend is held to float32 rounding of the f64 result; the
emulator (the generated kernels) to SPEC's accuracy: 1e-4 of max|y| for f32
inputs, 1e-2 for bf16/f16, 1e-4 for the f32 state.
"""

import itertools
import math
import os
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np

# Output y and states are float32 of an f64 result: each value is within
# 2^-24 relative of the truth, far inside this bound.
TOL = 1e-6


# ---------------------------------------------------------------- the math
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


# ---------------------------------------------------------------- the cases
def random_state(rng, B, H, d, e, p):
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


def make_case(seed, B, T, Hq, H, d, e, p, schedule, flags, file_dtype,
              dtype="f32", log_g=False, log_gamma=False, initial=False,
              final=False, rope=None, scale=None, warp_length=None,
              explicit_schedule=True):
    rng = np.random.default_rng(seed)
    case = dict(p=p, schedule=schedule, dtype=dtype, flags=list(flags),
                file_dtype=file_dtype, final=final,
                explicit_schedule=explicit_schedule)
    # Store what the files will hold, so both sides see the same values.
    cast = lambda x: x.astype(file_dtype).astype(np.float64)
    case["q"] = cast(rng.standard_normal((B, T, Hq, d)))
    case["k"] = cast(rng.standard_normal((B, T, H, d)))
    case["v"] = cast(rng.standard_normal((B, T, H, e)))
    if log_g:
        case["log_g"] = cast(np.log(rng.uniform(0.9, 1.0, (B, T, H))))
    if log_gamma:
        case["log_gamma"] = cast(np.log(rng.uniform(0.9, 1.0, (H,))))
    if schedule == "learned":
        case["beta"] = cast(rng.uniform(0.2, 1.8, (B, T, H)))
    if initial:
        case["initial"] = tuple(cast(a) for a in random_state(rng, B, H, d, e, p))
    case["rope"] = dict(base=10000.0, scale=1.0, dims=0, layout="interleaved")
    case["rope"].update(rope or {})
    if scale is not None:
        case["scale"] = scale
    if warp_length is not None:
        case["warp_length"] = warp_length
    return case


CASES = [
    # name, case
    ("p2 plain f32", make_case(1, 1, 6, 2, 2, 4, 4, 2, "none", [], np.float32)),
    ("p2 GQA learned both gates partial interleaved S0+final",
     make_case(2, 2, 9, 4, 2, 6, 3, 2, "learned", [], np.float32,
               log_g=True, log_gamma=True, initial=True, final=True,
               rope=dict(base=100.0, scale=2 * math.pi, dims=4))),
    ("p4 GQA uniform(implicit) half log_g S0+final chunk 3 f64 files",
     make_case(3, 1, 10, 4, 2, 4, 3, 4, "uniform",
               ["--formulation", "chunked", "--chunk-size", "3"], np.float64,
               log_g=True, initial=True, final=True,
               rope=dict(layout="half", base=500.0), explicit_schedule=False)),
    ("p2 warped log_gamma bf16",
     make_case(4, 2, 8, 2, 1, 6, 5, 2, "warped", [], np.float32, dtype="bf16",
               log_gamma=True, rope=dict(dims=4, layout="half"),
               warp_length=3.5)),
    ("p2 blend both gates f16 scale",
     make_case(5, 1, 12, 3, 3, 4, 2, 2, "blend", [], np.float64, dtype="f16",
               log_g=True, log_gamma=True, scale=0.3, warp_length=4.0,
               rope=dict(scale=0.5))),
    ("p4 learned half partial recurrent final",
     make_case(6, 1, 7, 2, 1, 4, 2, 4, "learned",
               ["--formulation", "recurrent"], np.float32, log_g=True,
               final=True, rope=dict(dims=2, layout="half"))),
    ("p2 learned f64 files rounded to f32, attention with S0",
     make_case(7, 2, 5, 2, 1, 4, 3, 2, "learned",
               ["--formulation", "attention"], np.float64, log_gamma=True,
               initial=True, explicit_schedule=False)),
    ("p2 uniform bf16 e!=d S0+final auto",
     make_case(8, 1, 9, 4, 1, 6, 2, 2, "uniform", [], np.float32,
               dtype="bf16", initial=True, final=True,
               rope=dict(dims=6, base=50.0))),
    ("p4 warped GQA f16 both gates",
     make_case(9, 1, 10, 4, 2, 4, 3, 4, "warped", [], np.float32,
               dtype="f16", log_g=True, log_gamma=True, warp_length=2.0)),
    ("p6 none tiny", make_case(10, 1, 5, 1, 1, 2, 2, 6, "none", [],
                               np.float32)),
]


# The generated kernels' variants: head dims multiples of 16.
KERNEL_CASES = [
    ("kernels p2 attention GQA learned both gates bf16",
     make_case(11, 2, 13, 4, 2, 16, 16, 2, "learned",
               ["--formulation", "attention"], np.float32, dtype="bf16",
               log_g=True, log_gamma=True,
               rope=dict(base=100.0, scale=2 * math.pi, dims=8))),
    ("kernels p2 chunked uniform half e!=d S0+final f32",
     make_case(12, 1, 19, 2, 1, 16, 32, 2, "uniform",
               ["--formulation", "chunked", "--chunk-size", "8"], np.float32,
               log_g=True, initial=True, final=True,
               rope=dict(layout="half", base=500.0))),
    ("kernels p4 recurrent learned f16 S0+final",
     make_case(13, 2, 5, 2, 2, 16, 16, 4, "learned",
               ["--formulation", "recurrent"], np.float32, dtype="f16",
               log_gamma=True, initial=True, final=True,
               rope=dict(dims=16))),
    ("kernels p2 warped attention f32",
     make_case(14, 1, 11, 2, 1, 16, 16, 2, "warped", [], np.float32,
               log_g=True, warp_length=4.0, rope=dict(dims=16))),
]


def tolerances(backend, case):
    """(y, state) relative bounds."""
    if backend == "reference":
        return TOL, TOL
    return (1e-4 if case["dtype"] == "f32" else 1e-2), 1e-4


def run_case(exe, backend, name, case, tmp):
    def save(stem, arr):
        path = os.path.join(tmp, stem + ".npy")
        np.save(path, arr.astype(case["file_dtype"]))
        return path

    cmd = [exe, "--backend", backend, "--power", str(case["p"]),
           "--q", save("q", case["q"]), "--k", save("k", case["k"]),
           "--v", save("v", case["v"]), "--out", os.path.join(tmp, "y.npy")]
    if "log_g" in case:
        cmd += ["--log-g", save("log_g", case["log_g"])]
    if "log_gamma" in case:
        cmd += ["--log-gamma", save("log_gamma", case["log_gamma"])]
    if "beta" in case:
        cmd += ["--beta", save("beta", case["beta"])]
    if case["explicit_schedule"]:
        cmd += ["--schedule", case["schedule"]]
    if case["schedule"] != "none":
        rope = case["rope"]
        cmd += ["--rope-base", repr(rope["base"]),
                "--rope-scale", repr(rope["scale"]),
                "--rope-layout", rope["layout"]]
        if rope["dims"]:
            cmd += ["--rope-dims", str(rope["dims"])]
    if "warp_length" in case:
        cmd += ["--warp-length", repr(case["warp_length"])]
    if "scale" in case:
        cmd += ["--scale", repr(case["scale"])]
    if case["dtype"] != "f32" or case["file_dtype"] == np.float64:
        cmd += ["--dtype", case["dtype"]]
    if "initial" in case:
        cmd += ["--initial-state"] + [save(s, a) for s, a in
                                      zip(("S0", "Z0", "c0"), case["initial"])]
    finals = [os.path.join(tmp, s + ".npy") for s in ("Sf", "Zf", "cf")]
    if case["final"]:
        cmd += ["--final-state"] + finals
    cmd += case["flags"]

    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return [f"exit {proc.returncode}: {proc.stderr.strip()}"]
    errors = []
    y_ref, state_ref = definition(case)
    y = np.load(os.path.join(tmp, "y.npy"))

    tol_y, tol_state = tolerances(backend, case)

    def compare(what, got, want, tol):
        if got.dtype != np.float32:
            errors.append(f"{what} is {got.dtype}, expected float32")
        if got.shape != want.shape:
            errors.append(f"{what} has shape {got.shape}, expected {want.shape}")
            return
        scale = np.max(np.abs(want))
        err = np.max(np.abs(got.astype(np.float64) - want))
        if not scale > 0:
            errors.append(f"{what}: reference is all zero, the case is vacuous")
        elif not err <= tol * scale:
            errors.append(f"{what}: max error {err:.3g} > {tol} * {scale:.3g}")

    compare("y", y, y_ref, tol_y)
    if case["final"]:
        for what, path, want in zip(("S", "Z", "c"), finals, state_ref):
            compare("final " + what, np.load(path), want, tol_state)
    return errors


def main():
    args = sys.argv[1:]
    backend = "reference"
    if len(args) == 3 and args[1] == "--backend":
        backend = args.pop(2)
        args.pop(1)
    if len(args) != 1 or backend not in ("reference", "emulator"):
        print(__doc__, file=sys.stderr)
        return 2
    exe = args[0]
    cases = CASES if backend == "reference" else KERNEL_CASES
    failures = 0
    for name, case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            errors = run_case(exe, backend, name, case, tmp)
        print(("FAIL " if errors else "ok   ") + name)
        for e in errors:
            print("     " + e)
        failures += bool(errors)
    print(f"{len(cases) - failures}/{len(cases)} cases agree ({backend})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
