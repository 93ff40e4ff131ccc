#!/usr/bin/env python3
"""sympow-bench refuses bad input with one clear line and exit status 2,
and --backend cuda says why it cannot run where there is no GPU.

usage: check_sympow_bench_errors.py SYMPOW_BENCH
"""

import subprocess
import sys

BENCH = sys.argv[1]
V = "p=2,d=16,e=16,dtype=bf16"
CASES = [
    (["--variant", "p=2,d=16,bogus=1"], "bogus"),
    (["--variant", V, "--tokens", "0"], "--tokens takes positive integers"),
    (["--variant", V, "--tokens", "64,x"], "--tokens takes positive integers"),
    (["--variant", V, "--arch", "sm_75"], "no GPU model for --arch 'sm_75'"),
    (["--variant", V, "--backend", "tpu"], "--backend must be emulator, cuda or model"),
    (["--variant", V, "--direction", "backward"], "not implemented yet"),
    (["--variant", V, "--batch", "0"], "--batch must be >= 1"),
    (["--variant", "p=3,d=16"], "p"),
    (["--variant", V, "--backend", "cuda", "--repeat", "0"], "--repeat must be >= 1"),
    (["--variant", V, "--direction", "sideways"], "--direction must be forward or backward"),
    (["--variant", V, "--tokens", "64,1000000000000"], "GB of host memory"),
    (["--variant", V, "--json", "/nonexistent-folder/out.json"], "cannot write --json"),
    (["--variant", V, "--backend", "model", "--profile", "3"], "--profile counts what the emulator runs"),
    # The model predicts only kernels the compiler builds.
    (["--variant", V + ",formulation=chunked,chunk=100", "--backend", "model"],
     "chunk size 100 is not supported"),
]
failures = 0
for args, expected in CASES:
    proc = subprocess.run([BENCH] + args, capture_output=True, text=True)
    lines = [l for l in proc.stderr.splitlines() if l.startswith("sympow-bench: error")]
    if proc.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
        failures += 1
        print("FAIL %s: exit %d, stderr:\n%s" % (args, proc.returncode, proc.stderr))

# No GPU here (or no driver): --backend cuda explains and exits 2.
proc = subprocess.run([BENCH, "--variant", V, "--tokens", "64", "--backend", "cuda"],
                      capture_output=True, text=True)
if proc.returncode == 0:
    print("note: a GPU is present; --backend cuda ran")
elif proc.returncode != 2 or "--backend cuda:" not in proc.stderr or \
        "predicts without a GPU" not in proc.stderr:
    failures += 1
    print("FAIL --backend cuda without a GPU: exit %d, stderr:\n%s"
          % (proc.returncode, proc.stderr))
else:
    print("--backend cuda skipped as it should be: " + proc.stderr.strip())

if failures:
    sys.exit(1)
print("sympow-bench: every bad input refused")
