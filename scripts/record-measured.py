#!/usr/bin/env python3
"""Records layers measured by `sympow-bench --backend cuda` in perf/.

Each run (formulation, T, B) of each bench JSON becomes one row of the
measured file, in perf/h100-baseline.json's shape (case, T, B, the layer's
median kernel_ms_total, each kernel's median in kernels_ms) plus what the
model predicted then, the variant, the chunk, the commit and the date. Rows
of the same case, formulation, T and B are replaced.

  scripts/gpu-check.sh gpu-check          # on the GPU machine
  scripts/record-measured.py --case "p2d64 chunked data c64" \\
      --commit 2bdbb5b --date 2026-11-26 \\
      --device "NVIDIA H100 80GB HBM3" gpu-check/time-chunk64.json
"""

import argparse
import json
import os


DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}


def sizes(variant):
    """The baseline's size fields from sympow-bench's variant keys."""
    keys = dict(kv.split("=", 1) for kv in variant.split(","))
    return {"p": int(keys["p"]), "d": int(keys["d"]),
            "e": int(keys.get("e", keys["d"])),
            "hq": int(keys.get("hq", 1)), "h": int(keys.get("h", 1)),
            "dtype": DTYPES[keys.get("dtype", "f32")],
            "gate": keys.get("gate", "none"),
            "schedule": keys.get("rope", "none")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench", nargs="+", help="sympow-bench --json output")
    parser.add_argument("--case", required=True, help="the rows' case name")
    parser.add_argument("--commit", required=True,
                        help="the sympow commit the kernels came from")
    parser.add_argument("--date", required=True, help="when, YYYY-MM-DD")
    parser.add_argument("--device", required=True,
                        help="the GPU, as nvidia-smi names it")
    parser.add_argument("--out", default="perf/h100-measured.json")
    args = parser.parse_args()

    if os.path.exists(args.out):
        with open(args.out) as f:
            measured = json.load(f)
    else:
        measured = {"about": "", "rows": []}
    def key(r):
        return (r["case"], r["formulation"], r["T"], r["B"])

    rows = {key(r): r for r in measured["rows"]}

    for path in args.bench:
        with open(path) as f:
            bench = json.load(f)
        if bench.get("backend") != "cuda":
            parser.error("%s: not a --backend cuda run (%r)"
                         % (path, bench.get("backend")))
        for run in bench["runs"]:
            row = {
                "case": args.case, "T": run["T"], "B": run["B"],
                **sizes(bench["variant"]),
                "variant": bench["variant"], "formulation": run["formulation"],
                "chunk": run.get("chunk", 0),
                "kernel_ms_total": run["layer"]["measured_seconds"] * 1e3,
                "kernels_ms": {k["name"]: k["measured"]["median_seconds"] * 1e3
                               for k in run["kernels"]},
                "predicted_ms": {k["name"]: k["prediction"]["seconds"] * 1e3
                                 for k in run["kernels"]},
                "device": args.device, "device_arch": bench["device_arch"],
                "commit": args.commit, "date": args.date,
            }
            rows[key(row)] = row

    measured["rows"] = sorted(rows.values(),
                              key=lambda r: (r["case"], r["formulation"],
                                             r["B"], r["T"]))
    with open(args.out, "w") as f:
        json.dump(measured, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
