#!/usr/bin/env python3
"""Checks `sympow-run` against an independent numpy f64 implementation of
the SPEC definition (attention form, written directly from SPEC.md, sharing
no code with the C++ reference or the kernels).

usage: check_sympow_run.py PATH/TO/sympow-run [--backend reference|emulator]

The reference backend is held to float32 rounding of the f64 result; the
emulator (the generated kernels) to SPEC's accuracy: 1e-4 of max|y| for f32
inputs, 1e-2 for bf16/f16, 1e-4 for the f32 state.
"""

import math
import os
import subprocess
import sys
import tempfile

import numpy as np

# The SPEC math, shared with test/Python (this file's folder is on sys.path
# when it is run as a script).
from spec_numpy import definition, random_state  # noqa: E402

# Output y and states are float32 of an f64 result: each value is within
# 2^-24 relative of the truth, far inside this bound.
TOL = 1e-6


# ---------------------------------------------------------------- the cases
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
