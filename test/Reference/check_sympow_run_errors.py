#!/usr/bin/env python3
"""Checks that every bad sympow-run invocation exits with status 2, prints
exactly one line `sympow-run: error: ...` naming the problem on stderr, and
leaves no output file (nor temporary) behind. Also checks --help.

usage: check_sympow_run_errors.py PATH/TO/sympow-run
"""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

PREFIX = "sympow-run: error: "

# Every flag of the documented interface; --help must explain each.
ALL_FLAGS = ["--backend", "--power", "--q", "--k", "--v", "--log-g",
             "--log-gamma", "--beta", "--rope-base", "--rope-scale",
             "--rope-dims", "--rope-layout", "--schedule", "--warp-length",
             "--scale", "--dtype", "--formulation", "--chunk-size",
             "--initial-state", "--final-state", "--out", "--help"]


def write_inputs(tmp):
    """Valid inputs: B=1, T=4, Hq=2, H=1, d=4, e=3, and a p=2 state."""
    rng = np.random.default_rng(0)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    files = {
        "q": f(1, 4, 2, 4), "k": f(1, 4, 1, 4), "v": f(1, 4, 1, 3),
        "g": np.log(rng.uniform(0.9, 1, (1, 4, 1))).astype(np.float32),
        "lg": np.array([-0.1], np.float32),
        "beta": rng.uniform(0.5, 1.5, (1, 4, 1)).astype(np.float32),
        "S0": np.zeros((1, 1, 10, 3), np.float32),
        "Z0": np.zeros((1, 1, 10), np.float32),
        "c0": np.zeros((1, 1), np.float32),
        # Bad ones.
        "q3": f(1, 4, 3, 4),                       # Hq = 3 ...
        "k2": f(1, 4, 2, 4),                       # ... over H = 2
        "v2": f(1, 4, 2, 3),
        "k_d5": f(1, 4, 1, 5),
        "v_T5": f(1, 5, 1, 3),
        "q_3d": f(1, 4, 8),
        "q_nan": np.full((1, 4, 2, 4), np.nan, np.float32),
        "q_big": np.full((1, 4, 2, 4), 1e5, np.float32),
        "g_shape": np.zeros((1, 4), np.float32),
        "g_pos": np.full((1, 4, 1), 0.5, np.float32),
        "beta_big": np.full((1, 4, 1), 3.0, np.float32),
        "S0_bad": np.zeros((1, 1, 9, 3), np.float32),
        "q_int": np.zeros((1, 4, 2, 4), np.int64),
        "q_f16": np.zeros((1, 4, 2, 4), np.float16),
        "q_fortran": np.asfortranarray(f(1, 4, 2, 4)),
        # Head dims the generated kernels take (d = e = 16, D = 136).
        "q16": f(1, 4, 2, 16), "k16": f(1, 4, 1, 16), "v16": f(1, 4, 1, 16),
        "S0_16": np.zeros((1, 1, 136, 16), np.float32),
        "Z0_16": np.zeros((1, 1, 136), np.float32),
    }
    for name, arr in files.items():
        np.save(os.path.join(tmp, name + ".npy"), arr)
    with open(os.path.join(tmp, "text.npy"), "w") as fh:
        fh.write("this is not an array\n")
    with open(os.path.join(tmp, "trunc.npy"), "wb") as fh:
        fh.write(open(os.path.join(tmp, "q.npy"), "rb").read()[:-7])


BASE = ["--backend", "reference", "--power", "2", "--q", "q.npy",
        "--k", "k.npy", "--v", "v.npy", "--out", "y.npy"]
STATE = ["S0.npy", "Z0.npy", "c0.npy"]
KERNEL_BASE = ["--backend", "emulator", "--power", "2", "--q", "q16.npy",
               "--k", "k16.npy", "--v", "v16.npy", "--out", "y.npy"]
FINAL = ["--final-state", "Sf.npy", "Zf.npy", "cf.npy"]


def without(args, flag, n=1):
    i = args.index(flag)
    return args[:i] + args[i + 1 + n:]


def replace(args, flag, value):
    i = args.index(flag)
    return args[:i + 1] + [value] + args[i + 2:]


def has_cuda_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


# (name, argv, expected substring of the message)
CASES = [
    ("odd power", replace(BASE, "--power", "3"),
     "power p = 3 is not supported: p must be an even integer >= 2"),
    ("zero power", replace(BASE, "--power", "0"),
     "power p = 0 is not supported"),
    # One set of rules with the C API and sympow-aot (LayerRules.h), on
    # every backend.
    ("power above the bound", replace(BASE, "--power", "34"),
     "power p = 34 is not supported: p must be an even integer >= 2 and <= 32"),
    ("scale zero", BASE + ["--scale", "0"],
     "scale = 0 must be a finite number > 0"),
    ("scale negative", BASE + ["--scale", "-1"],
     "scale = -1 must be a finite number > 0"),
    ("rope base one", BASE + ["--rope-base", "1"],
     "rotary base = 1 must be a finite number > 1"),
    ("emulator scale zero", KERNEL_BASE + ["--scale", "0"],
     "scale = 0 must be a finite number > 0"),
    ("power not a number", replace(BASE, "--power", "two"),
     "--power expects an integer, got 'two'"),
    ("power missing value", ["--power"] + without(BASE, "--power"),
     "--power needs a value"),
    ("k head dim mismatch", replace(BASE, "--k", "k_d5.npy"),
     "k has shape [1, 4, 1, 5] but q [B, T, Hq, d] = [1, 4, 2, 4]"),
    ("v length mismatch", replace(BASE, "--v", "v_T5.npy"),
     "v has shape [1, 5, 1, 3]"),
    ("q not 4-D", replace(BASE, "--q", "q_3d.npy"),
     "q must be 4-D [B, T, Hq, d], got shape [1, 4, 8]"),
    ("Hq not multiple of H",
     replace(replace(replace(BASE, "--q", "q3.npy"), "--k", "k2.npy"), "--v",
             "v2.npy"),
     "query heads Hq = 3 is not a multiple of key/value heads H = 2"),
    ("missing file", replace(BASE, "--q", "nope.npy"),
     "cannot read 'nope.npy': No such file or directory"),
    ("directory as file", replace(BASE, "--v", "."),
     "cannot read '.': not a regular file"),
    ("text file", replace(BASE, "--q", "text.npy"),
     "'text.npy': not a .npy file"),
    ("truncated file", replace(BASE, "--q", "trunc.npy"),
     "'trunc.npy': truncated data"),
    ("integer dtype", replace(BASE, "--q", "q_int.npy"),
     "'q_int.npy': unsupported dtype '<i8'; only float32 ('<f4') and "
     "float64 ('<f8')"),
    ("float16 file", replace(BASE, "--q", "q_f16.npy"),
     "unsupported dtype '<f2'"),
    ("fortran order", replace(BASE, "--q", "q_fortran.npy"),
     "'q_fortran.npy': Fortran-order arrays are not supported"),
    ("NaN input", replace(BASE, "--q", "q_nan.npy"),
     "q element 0 = nan is not finite"),
    ("overflows f16", replace(BASE, "--q", "q_big.npy") + ["--dtype", "f16"],
     "q element 0 = 100000 overflows f16"),
    ("unknown flag", BASE + ["--foo", "1"], "unknown flag '--foo'"),
    ("positional argument", BASE + ["extra"], "unexpected argument 'extra'"),
    ("repeated flag", BASE + ["--q", "q.npy"], "--q is given more than once"),
    ("missing backend", without(BASE, "--backend"),
     "missing required flag --backend"),
    ("missing power", without(BASE, "--power"), "missing required flag --power"),
    ("missing q", without(BASE, "--q"), "missing required flag --q"),
    ("missing k", without(BASE, "--k"), "missing required flag --k"),
    ("missing v", without(BASE, "--v"), "missing required flag --v"),
    ("missing out", without(BASE, "--out"), "missing required flag --out"),
    # The kernels need head dims that are multiples of 16 (BASE has d = 4).
    ("emulator head dim", replace(BASE, "--backend", "emulator"),
     "the generated kernels cannot run this layer: d = 4 is not supported"),
    ("emulator attention with a state",
     KERNEL_BASE + ["--formulation", "attention", "--initial-state",
                    "S0_16.npy", "Z0_16.npy", "c0.npy"],
     "the attention kernel takes no state: use --formulation chunked or "
     "recurrent (or auto) with --initial-state"),
    ("emulator warp length not whole",
     KERNEL_BASE + ["--schedule", "warped", "--warp-length", "2.5",
                    "--rope-dims", "16"],
     "the kernels take a whole --warp-length, got 2.5"),
    ("unknown backend", replace(BASE, "--backend", "tpu"),
     "--backend must be one of reference|emulator|cuda, got 'tpu'"),
    ("bad schedule", BASE + ["--schedule", "spiral"],
     "--schedule must be one of none|uniform|learned|warped|blend"),
    ("bad layout", BASE + ["--rope-layout", "diagonal"],
     "--rope-layout must be one of interleaved|half, got 'diagonal'"),
    ("bad dtype", BASE + ["--dtype", "f64"],
     "--dtype must be one of f32|bf16|f16, got 'f64'"),
    ("bad formulation", BASE + ["--formulation", "fast"],
     "--formulation must be one of auto|attention|chunked|recurrent"),
    ("scale not finite", BASE + ["--scale", "nan"],
     "--scale expects a finite number, got 'nan'"),
    ("rope base not a number", BASE + ["--rope-base", "1e400"],
     "--rope-base expects a finite number, got '1e400'"),
    ("rope base not positive", BASE + ["--rope-base", "-5"],
     "rotary base = -5 must be a finite number > 1"),
    ("odd rope dims", BASE + ["--rope-dims", "3"],
     "rotary dims r = 3 must be even and between 2 and d = 4"),
    ("rope dims > d", BASE + ["--rope-dims", "6"], "rotary dims r = 6"),
    ("rope dims 0", BASE + ["--rope-dims", "0"], "--rope-dims 0 is not allowed"),
    ("rope flag with schedule none",
     BASE + ["--schedule", "none", "--rope-base", "10"],
     "--rope-base has no effect with --schedule none"),
    ("learned without beta", BASE + ["--schedule", "learned"],
     "--schedule learned needs --beta BETA.npy"),
    ("beta with uniform", BASE + ["--schedule", "uniform", "--beta", "beta.npy"],
     "--beta is only used with --schedule learned, not --schedule uniform"),
    ("beta out of range", BASE + ["--beta", "beta_big.npy"],
     "beta element 0 = 3 is outside [0, 2]"),
    ("warped without length", BASE + ["--schedule", "warped"],
     "--schedule warped needs --warp-length L"),
    ("warp length with uniform",
     BASE + ["--schedule", "uniform", "--warp-length", "4"],
     "--warp-length is only used with --schedule warped or blend"),
    ("warp length not positive",
     BASE + ["--schedule", "blend", "--warp-length", "0"],
     "warp length L = 0 must be a finite number > 0"),
    ("warped recurrent",
     BASE + ["--schedule", "warped", "--warp-length", "4",
             "--formulation", "recurrent"],
     "schedule 'warped' has no recurrent form"),
    ("blend chunked",
     BASE + ["--schedule", "blend", "--warp-length", "4",
             "--formulation", "chunked"],
     "schedule 'blend' has no chunked form"),
    ("warped final state",
     BASE + ["--schedule", "warped", "--warp-length", "4"] + FINAL,
     "--schedule warped has no recurrent state"),
    ("blend initial state",
     BASE + ["--schedule", "blend", "--warp-length", "4",
             "--initial-state"] + STATE,
     "--schedule blend has no recurrent state"),
    ("chunk size zero", BASE + ["--formulation", "chunked", "--chunk-size", "0"],
     "the chunked formulation needs a chunk size C >= 1, got 0"),
    ("chunk size negative", BASE + ["--chunk-size", "-3"],
     "chunk size C = -3 must be >= 1"),
    ("chunk size with attention",
     BASE + ["--formulation", "attention", "--chunk-size", "8"],
     "--chunk-size only applies to --formulation chunked"),
    ("initial state with two files",
     BASE + ["--initial-state", "S0.npy", "Z0.npy"],
     "--initial-state takes three file names"),
    ("initial state wrong D", BASE + ["--initial-state", "S0_bad.npy",
                                      "Z0.npy", "c0.npy"],
     "initial state S has shape [1, 1, 9, 3] but [B, H, D, e] with D = "
     "C(d+p-1, p) = [1, 1, 10, 3]"),
    ("log_g wrong shape", BASE + ["--log-g", "g_shape.npy"],
     "log_g has shape [1, 4] but [B, T, H] = [1, 4, 1] was expected"),
    ("log_g positive", BASE + ["--log-g", "g_pos.npy"],
     "log_g element 0 = 0.5 is > 0"),
    ("log_gamma wrong shape", BASE + ["--log-gamma", "g.npy"],
     "log_gamma has shape [1, 4, 1] but [H] = [1] was expected"),
    ("out given twice", BASE + ["--final-state", "y.npy", "Zf.npy", "cf.npy"],
     "output file 'y.npy' is given twice"),
    ("unwritable out", replace(BASE, "--out", "nodir/y.npy"),
     "cannot write 'nodir/y.npy'"),
    ("unwritable final state", BASE + ["--final-state", "Sf.npy", "nodir/Z.npy",
                                       "cf.npy"],
     "cannot write 'nodir/Z.npy'"),
]


def check_case(exe, name, args, expected, tmp):
    before = sorted(os.listdir(tmp))
    proc = subprocess.run([exe] + args, cwd=tmp, capture_output=True,
                          text=True)
    errors = []
    if proc.returncode != 2:
        errors.append(f"exit status {proc.returncode}, expected 2")
    lines = proc.stderr.splitlines()
    if len(lines) != 1:
        errors.append(f"{len(lines)} stderr lines, expected 1: {proc.stderr!r}")
    elif not lines[0].startswith(PREFIX):
        errors.append(f"stderr lacks the '{PREFIX}' prefix: {lines[0]!r}")
    elif expected not in lines[0]:
        errors.append(f"message {lines[0]!r} lacks {expected!r}")
    if proc.stdout:
        errors.append(f"unexpected stdout: {proc.stdout!r}")
    after = sorted(os.listdir(tmp))
    if after != before:
        errors.append(f"files changed: {sorted(set(after) ^ set(before))}")
    return errors


# Where no driver is installed (every machine of this project so far), the
# cuda backend says so and writes nothing.
if not has_cuda_driver():
    CASES.append(("cuda without a driver",
                  replace(KERNEL_BASE, "--backend", "cuda"),
                  "no CUDA driver found: cannot load libcuda.so.1"))


def check_help(exe):
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True)
    errors = []
    if proc.returncode != 0:
        errors.append(f"--help exit status {proc.returncode}")
    for flag in ALL_FLAGS:
        if flag not in proc.stdout:
            errors.append(f"--help does not mention {flag}")
    return errors


def check_success_baseline(exe, tmp):
    """The unmodified BASE command works, so failures above are the flags'."""
    proc = subprocess.run([exe] + BASE + FINAL + ["--initial-state"] + STATE,
                          cwd=tmp, capture_output=True, text=True)
    if proc.returncode != 0 or proc.stderr:
        return [f"baseline failed: {proc.returncode} {proc.stderr!r}"]
    made = [f for f in ("y.npy", "Sf.npy", "Zf.npy", "cf.npy")
            if os.path.exists(os.path.join(tmp, f))]
    leftovers = [f for f in os.listdir(tmp) if f.endswith(".tmp")]
    errs = [] if len(made) == 4 else [f"baseline wrote only {made}"]
    if leftovers:
        errs.append(f"baseline left temporaries {leftovers}")
    for f in made:
        os.remove(os.path.join(tmp, f))
    return errs


def check_commit_atomic(exe, tmp):
    """A failed run changes no output: with outputs that exist already and a
    later one that cannot be written (a directory), every old output is kept
    byte for byte and no temporary is left; two spellings of one file are
    refused before anything is touched."""
    work = os.path.join(tmp, "commit")
    os.mkdir(work)
    for f in ["q", "k", "v", "S0", "Z0", "c0"]:
        os.symlink(os.path.join(tmp, f + ".npy"), os.path.join(work, f + ".npy"))
    init = ["--initial-state"] + STATE
    cases = [
        ("S is a directory", ["y.npy"], ["S_dir"],
         BASE + init + ["--final-state", "S_dir", "Zf.npy", "cf.npy"],
         "cannot write 'S_dir'"),
        ("c is a directory", ["y.npy", "Sf.npy", "Zf.npy"], ["c_dir"],
         BASE + init + ["--final-state", "Sf.npy", "Zf.npy", "c_dir"],
         "cannot write 'c_dir'"),
        ("existing out as ./y.npy", ["y.npy"], [],
         BASE + init + ["--final-state", "./y.npy", "Zf.npy", "cf.npy"],
         "output files 'y.npy' and './y.npy' are the same file"),
        ("new out as sub/../new.npy", [], ["sub"],
         replace(BASE, "--out", "new.npy") + init +
         ["--final-state", "Sf.npy", "sub/../new.npy", "cf.npy"],
         "output files 'new.npy' and 'sub/../new.npy' are the same file"),
        ("out through a symlink", ["y.npy"], [],
         BASE + init + ["--final-state", "alias.npy", "Zf.npy", "cf.npy"],
         "output files 'y.npy' and 'alias.npy' are the same file"),
    ]
    errors = []
    for name, existing, dirs, args, expected in cases:
        sentinels = {}
        for i, f in enumerate(existing):
            data = np.full((2, 3), float(i + 7), np.float32)
            np.save(os.path.join(work, f), data)
            sentinels[f] = open(os.path.join(work, f), "rb").read()
        for d in dirs:
            os.mkdir(os.path.join(work, d))
        if name == "out through a symlink":
            os.symlink("y.npy", os.path.join(work, "alias.npy"))
        before = sorted(os.listdir(work))
        proc = subprocess.run([exe] + args, cwd=work, capture_output=True,
                              text=True)
        lines = proc.stderr.splitlines()
        if proc.returncode != 2:
            errors.append(f"{name}: exit status {proc.returncode}, expected 2")
        if len(lines) != 1 or expected not in lines[0]:
            errors.append(f"{name}: stderr {proc.stderr!r} lacks {expected!r}")
        after = sorted(os.listdir(work))
        if after != before:
            errors.append(f"{name}: files changed: "
                          f"{sorted(set(after) ^ set(before))}")
        for f, content in sentinels.items():
            path = os.path.join(work, f)
            if not os.path.exists(path):
                errors.append(f"{name}: pre-existing {f} is gone")
            elif open(path, "rb").read() != content:
                errors.append(f"{name}: pre-existing {f} was changed")
        for d in dirs:
            if os.listdir(os.path.join(work, d)):
                errors.append(f"{name}: something was written into {d}/")
        for f in os.listdir(work):
            path = os.path.join(work, f)
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            elif f not in ["q.npy", "k.npy", "v.npy"] + STATE:
                os.remove(path)
    # And a successful run replaces every existing output.
    for f in ["y.npy", "Sf.npy", "Zf.npy", "cf.npy"]:
        np.save(os.path.join(work, f), np.zeros(1, np.float32))
    proc = subprocess.run([exe] + BASE + init + FINAL, cwd=work,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        errors.append(f"overwrite: exit {proc.returncode} {proc.stderr!r}")
    elif np.load(os.path.join(work, "y.npy")).shape != (1, 4, 2, 3):
        errors.append("overwrite: y.npy was not replaced")
    extra = set(os.listdir(work)) - set(
        ["q.npy", "k.npy", "v.npy", "y.npy", "Sf.npy", "Zf.npy", "cf.npy"]
        + STATE)
    if extra:
        errors.append(f"overwrite: left {sorted(extra)}")
    shutil.rmtree(work)
    return errors


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = os.path.abspath(sys.argv[1])
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        write_inputs(tmp)
        checks = [("--help", check_help(exe)),
                  ("valid baseline", check_success_baseline(exe, tmp))]
        checks.append(("all-or-nothing commit of outputs",
                       check_commit_atomic(exe, tmp)))
        for name, args, expected in CASES:
            checks.append((name, check_case(exe, name, args, expected, tmp)))
        for name, errors in checks:
            print(("FAIL " if errors else "ok   ") + name)
            for e in errors:
                print("     " + e)
            failures += bool(errors)
        print(f"{len(checks) - failures}/{len(checks)} checks pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
