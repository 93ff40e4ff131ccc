#!/usr/bin/env python3
"""sympow-bench --backend cuda over a fake CUDA driver (FakeTimedCudaDriver:
a launch takes 1 us per block of its grid on the fake device's clock, which
the CUDA events read). Checks the timing path end to end without a GPU:
every kernel's measured median/min/max is its own time (no kernel's time
given to another), the layer's is their sum, the repetition count, the
rates, the prediction next to it, and that the 256 MB L2 flush comes after
the inputs are uploaded and before the first kernel of every call.

usage: check_sympow_bench_cuda.py SYMPOW_BENCH FAKE_DRIVER WORK_DIR
"""

import json
import os
import subprocess
import sys

BENCH, DRIVER, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
LOG = os.path.join(WORK, "driver.log")
OUT = os.path.join(WORK, "cuda.json")
WARMUP, REPEAT = 1, 3
TOKENS = [64, 192]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def close(a, b):
    return abs(a - b) <= 1e-5 * max(abs(a), abs(b), 1e-12)


if os.path.exists(LOG):
    os.remove(LOG)
env = dict(os.environ, SYMPOW_CUDA_DRIVER=DRIVER, FAKE_CUDA_LOG=LOG)
cmd = [BENCH, "--backend", "cuda", "--variant",
       "p=2,d=16,e=16,hq=2,h=1,dtype=bf16,gate=data",
       "--tokens", ",".join(map(str, TOKENS)), "--no-check",
       "--warmup", str(WARMUP), "--repeat", str(REPEAT), "--json", OUT]
proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
if proc.returncode != 0:
    print("FAIL: %s exited %d:\n%s%s" % (" ".join(cmd), proc.returncode,
                                         proc.stdout, proc.stderr))
    sys.exit(1)
if "measured: median" not in proc.stdout:
    fail("the table shows no measured layer time:\n" + proc.stdout)

with open(OUT) as f:
    doc = json.load(f)
if doc.get("backend") != "cuda" or doc.get("device_arch") != "sm_90":
    fail("backend/device_arch: %r %r" % (doc.get("backend"), doc.get("device_arch")))
if doc.get("arch") != "sm_90a":
    fail("the model should follow the device (sm_90a), got %r" % doc.get("arch"))
formulations = sorted({r["formulation"] for r in doc["runs"]})
if formulations != ["attention", "chunked", "recurrent"]:
    fail("formulations: %s" % formulations)
if len(doc["runs"]) != len(formulations) * len(TOKENS):
    fail("%d runs" % len(doc["runs"]))

for run in doc["runs"]:
    where = "%s T=%d" % (run["formulation"], run["T"])
    if "check" in run:
        fail(where + ": --no-check still checked")
    total = 0.0
    for k in run["kernels"]:
        blocks = k["grid"][0] * k["grid"][1] * k["grid"][2]
        m = k.get("measured")
        if not m:
            fail(where + " " + k["name"] + ": no measurement")
            continue
        want = blocks * 1e-6  # the fake clock: 1 us per block
        for field in ("median_seconds", "min_seconds", "max_seconds"):
            if not close(m[field], want):
                fail("%s %s: %s = %r, the fake device took %r"
                     % (where, k["name"], field, m[field], want))
        if m["repetitions"] != REPEAT:
            fail(where + " " + k["name"] + ": %r repetitions" % m["repetitions"])
        if not (m["distinct_gbps"] > 0 and m["predicted_over_measured"] > 0):
            fail(where + " " + k["name"] + ": rates %r" % m)
        if k["counts_source"] != "estimated" or k["registers"] <= 0:
            fail(where + " " + k["name"] + ": counts_source %r, registers %r"
                 % (k["counts_source"], k["registers"]))
        if not k["prediction"]["seconds"] > 0:
            fail(where + " " + k["name"] + ": no prediction")
        total += want
    layer = run["layer"]
    if not close(layer.get("measured_seconds", -1), total):
        fail(where + ": layer measured %r, kernels sum to %r"
             % (layer.get("measured_seconds"), total))
    spread = layer.get("measured", {})
    if not (close(spread.get("min_seconds", -1), total) and
            close(spread.get("max_seconds", -1), total) and
            spread.get("repetitions") == REPEAT):
        fail(where + ": layer spread %r" % spread)
    if not (layer.get("tflops", 0) > 0 and layer.get("gbps", 0) > 0 and
            layer.get("predicted_over_measured", 0) > 0):
        fail(where + ": layer rates %r" % layer)

# The flush: once per call (warm-up and timed), after the call's uploads and
# before its first launch.
with open(LOG) as f:
    events = [line.split() for line in f if line.strip()]
flushes = sum(1 for e in events if e[0] == "fill" and int(e[1]) == 256 << 20)
calls = len(doc["runs"]) * (WARMUP + REPEAT)
if flushes != calls:
    fail("%d L2 flushes for %d calls" % (flushes, calls))
uploaded_since_flush = False
for e in events:
    if e[0] == "htod":
        uploaded_since_flush = True
    elif e[0] == "fill":
        uploaded_since_flush = False
    elif e[0] == "launch" and uploaded_since_flush:
        fail("kernel %s launched with inputs uploaded after the flush" % e[1])
        break

# scripts/record-measured.py turns the runs into perf rows: one per run,
# the layer's and each kernel's median in ms, the sizes from the variant;
# the same case again replaces its rows; an emulator JSON is refused.
RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "scripts", "record-measured.py")
MEASURED = os.path.join(WORK, "measured.json")
if os.path.exists(MEASURED):
    os.remove(MEASURED)
record = [sys.executable, RECORD, "--case", "fake", "--commit", "0000000",
          "--date", "2026-01-01", "--device", "fake", "--out", MEASURED, OUT]
for _ in range(2):
    proc = subprocess.run(record, capture_output=True, text=True)
    if proc.returncode != 0:
        fail("record-measured.py exited %d: %s" % (proc.returncode, proc.stderr))
if os.path.exists(MEASURED):
    with open(MEASURED) as f:
        rows = json.load(f)["rows"]
    if len(rows) != len(doc["runs"]):
        fail("record-measured.py: %d rows for %d runs" % (len(rows), len(doc["runs"])))
    for run in doc["runs"]:
        row = [r for r in rows if r["T"] == run["T"] and r["B"] == run["B"]
               and r["formulation"] == run["formulation"]]
        if len(row) != 1:
            fail("record-measured.py: no single row for %s T=%d"
                 % (run["formulation"], run["T"]))
            continue
        row = row[0]
        if not close(row["kernel_ms_total"],
                     run["layer"]["measured_seconds"] * 1e3):
            fail("record-measured.py: layer %r" % row["kernel_ms_total"])
        want = {k["name"]: k["measured"]["median_seconds"] * 1e3
                for k in run["kernels"]}
        if sorted(row["kernels_ms"]) != sorted(want) or not all(
                close(row["kernels_ms"][k], want[k]) for k in want):
            fail("record-measured.py: kernels %r" % row["kernels_ms"])
        if (row["p"], row["d"], row["e"], row["hq"], row["h"], row["dtype"]) != \
                (2, 16, 16, 2, 1, "bfloat16"):
            fail("record-measured.py: sizes %r" % row)
emulator = os.path.join(WORK, "emulator.json")
with open(emulator, "w") as f:
    json.dump(dict(doc, backend="emulator"), f)
proc = subprocess.run(record[:-1] + [emulator], capture_output=True, text=True)
if proc.returncode != 2 or "not a --backend cuda run" not in proc.stderr:
    fail("record-measured.py took an emulator run: %d %s"
         % (proc.returncode, proc.stderr))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("sympow-bench --backend cuda over the fake driver: %d runs timed, "
      "%d flushes in place" % (len(doc["runs"]), flushes))
