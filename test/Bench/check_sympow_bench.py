#!/usr/bin/env python3
"""sympow-bench's emulator mode on small layers: its JSON, the reference
check, and that every kernel's counts at T, 2T, 4T, 8T follow the GPU
model's scaling law exactly (a quadratic in T through the first three gives
the fourth: runtime/layer CountsScaling.h), on the kernels as they are now.

usage: check_sympow_bench.py SYMPOW_BENCH WORK_DIR
"""

import json
import re
import os
import subprocess
import sys
from fractions import Fraction

BENCH, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def quadratic_at(xs, ys, x):
    """The quadratic through (xs[i], ys[i]) at x, exactly."""
    total = Fraction(0)
    for i in range(3):
        term = Fraction(ys[i])
        for j in range(3):
            if i != j:
                term *= Fraction(x - xs[j], xs[i] - xs[j])
        total += term
    return total


def run(variant, tokens):
    out = os.path.join(WORK, "bench-%d.json" % abs(hash(variant)))
    cmd = [BENCH, "--backend", "emulator", "--variant", variant,
           "--tokens", ",".join(map(str, tokens)), "--arch", "sm_90a",
           "--json", out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(cmd), proc.returncode,
                                      proc.stdout, proc.stderr))
        return None
    if "slowest kernel" not in proc.stdout or "-bound" not in proc.stdout:
        fail("the table names no bound or slowest kernel:\n" + proc.stdout)
    with open(out) as f:
        return json.load(f)


def check_schema(doc, tokens):
    for key in ("tool", "variant", "arch", "gpu", "backend", "runs"):
        if key not in doc:
            fail("JSON lacks '%s'" % key)
    if doc.get("tool") != "sympow-bench" or doc.get("backend") != "emulator":
        fail("wrong tool/backend: %r" % {k: doc.get(k) for k in ("tool", "backend")})
    formulations = {r["formulation"] for r in doc["runs"]}
    if formulations != {"attention", "chunked", "recurrent"}:
        fail("formulations run: %s" % sorted(formulations))
    for run in doc["runs"]:
        where = "%s T=%d" % (run["formulation"], run["T"])
        if not run.get("check", {}).get("passed"):
            fail(where + ": the reference check did not pass: %r" % run.get("check"))
        # How close it came: y's error as a share of SPEC's bound, in (0, 1].
        share = re.search(r"error / bound: y ([0-9.e+-]+)",
                          run["check"].get("message", ""))
        if not share or not 0 < float(share.group(1)) <= 1:
            fail(where + ": no share of the bound for y in %r" % run["check"])
        names = [k["name"] for k in run["kernels"]]
        if run["formulation"] == "chunked" and names != [
                "chunk_state_pass", "chunk_output"]:
            fail(where + ": kernels %s" % names)
        layer = run["layer"]
        if not layer["predicted_seconds"] > 0:
            fail(where + ": predicted %r" % layer["predicted_seconds"])
        if not 0 < layer["floor_seconds"] <= layer["predicted_seconds"]:
            fail(where + ": floor %r above the prediction %r" % (
                layer["floor_seconds"], layer["predicted_seconds"]))
        if layer["dominant_kernel"] not in names:
            fail(where + ": dominant kernel %r" % layer["dominant_kernel"])
        for k in run["kernels"]:
            p = k["prediction"]
            if not (p["seconds"] > 0 and p["bound"] and p["explanation"]):
                fail(where + " " + k["name"] + ": prediction %r" % p)
            if k["registers"] <= 0:
                fail(where + " " + k["name"] + ": registers %r" % k["registers"])
            total = k["counts"]["total"]
            if total["global_load_bytes"] <= 0 or total["global_store_bytes"] <= 0:
                fail(where + " " + k["name"] + ": no global traffic counted")
            if k["counts"]["global_load_distinct_bytes"] > total["global_load_bytes"]:
                fail(where + " " + k["name"] + ": more distinct than total bytes")
    return {(r["formulation"], r["T"]): r for r in doc["runs"]}


def check_scaling(runs, tokens):
    for formulation in ("attention", "chunked", "recurrent"):
        samples = [runs.get((formulation, t)) for t in tokens]
        if None in samples:
            fail("%s: missing runs" % formulation)
            continue
        for index, kernel in enumerate(samples[0]["kernels"]):
            name = kernel["name"]
            series = {}
            for t, run in zip(tokens, samples):
                k = run["kernels"][index]
                c = k["counts"]
                values = {"grid.%d" % i: v for i, v in enumerate(k["grid"])}
                values.update({"total." + f: v for f, v in c["total"].items()})
                values.update({"heaviest." + f: v for f, v in c["heaviest"].items()})
                values["distinct_loads"] = c["global_load_distinct_bytes"]
                values["distinct_stores"] = c["global_store_distinct_bytes"]
                for field, v in values.items():
                    series.setdefault(field, []).append(v)
            for field, ys in series.items():
                predicted = quadratic_at(tokens[:3], ys[:3], tokens[3])
                if predicted != ys[3]:
                    fail("%s %s: %s at T=%d is %d, the law through T=%s gives %s"
                         % (formulation, name, field, tokens[3], ys[3],
                            tokens[:3], predicted))


tokens = [64, 128, 256, 512]
# Chunks of 64: the law holds once T spans whole chunks (the default chunk,
# the model's choice, may be longer than the shortest T).
doc = run("p=2,d=16,e=16,hq=2,h=1,dtype=bf16,gate=data,chunk=64", tokens)
if doc:
    check_scaling(check_schema(doc, tokens), tokens)

# --backend model: the estimated launches, instant at any T, no check.
out = os.path.join(WORK, "model.json")
proc = subprocess.run([BENCH, "--backend", "model", "--variant",
                       "p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data",
                       "--tokens", "4096,65536", "--json", out],
                      capture_output=True, text=True)
if proc.returncode != 0:
    fail("--backend model exited %d: %s" % (proc.returncode, proc.stderr))
else:
    with open(out) as f:
        model = json.load(f)
    for run in model["runs"]:
        sources = {k["counts_source"] for k in run["kernels"]}
        if sources != {"estimated"} or "check" in run:
            fail("--backend model run %r: sources %s" % (run["formulation"], sources))
    chunked = [r for r in model["runs"] if r["formulation"] == "chunked"]
    # chunk_scan dominated until it ran parallel over the state (docs/TileIR.md);
    # now the state pass and chunk_output take the time (the state pass more
    # since chunk_output copies the state halves).
    heavy = ("chunk_state_pass", "chunk_output")
    if not chunked or chunked[-1]["layer"]["dominant_kernel"] not in heavy:
        fail("--backend model: %s should dominate today's chunked layer, not %s"
             % (" or ".join(heavy),
                chunked[-1]["layer"]["dominant_kernel"] if chunked else "none"))

# --profile N: after each kernel's lines its N heaviest counted blocks, the
# heaviest first, whose operations add up to no more than the kernel's.
proc = subprocess.run([BENCH, "--variant",
                       "p=2,d=16,e=16,hq=2,h=1,dtype=bf16,gate=data,"
                       "formulation=chunked,chunk=64", "--tokens", "128",
                       "--no-check", "--profile", "3"],
                      capture_output=True, text=True)
profiles = re.findall(r"profile of (\w+): (\d+) counted blocks, (\d+) "
                      r"arithmetic thread operations; the (\d+) with the most:"
                      r"\n.*\n((?:    .*\n)+)", proc.stdout)
if proc.returncode != 0 or len(profiles) < 2:
    fail("--profile 3: exit %d, %d profiles in:\n%s"
         % (proc.returncode, len(profiles), proc.stdout))
for kernel, blocks, total, shown, rows in profiles:
    ops = [int(row.split()[0]) for row in rows.splitlines()]
    if len(ops) != min(3, int(blocks)) or int(shown) != len(ops) or \
            ops != sorted(ops, reverse=True) or sum(ops) > int(total) or \
            not all((kernel + " block ") in row for row in rows.splitlines()):
        fail("--profile 3 of %s: rows\n%s" % (kernel, rows))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("sympow-bench: JSON, reference check and scaling law hold")
