#!/usr/bin/env python3
"""Adds a measured case's kernel counts to the calibration fixture.

The calibration test (test/Perf/CalibrationTest.cpp) predicts every row of
perf/h100-baseline.json from perf/h100-calibration.json: per case, kernel
and B, the kernels' ptxas resources and their emulator counts at four
sequence lengths T0, 2T0, 4T0, 8T0 (the test extrapolates from the first
three and checks the fourth). When a GPU measures a new case, add its row to
the baseline and its counts here, from sympow-bench on the emulator with the
measured sizes and the library's kernels:

  build/bin/sympow-bench --backend emulator --arch sm_90a \\
      --variant "p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data,formulation=chunked" \\
      --tokens 128,256,512,1024 --json counts.json
  scripts/make-calibration-fixture.py --case "p2d64 chunked data" \\
      --bench counts.json --fixture perf/h100-calibration.json

Decode cases (T = 1) take one sample per B. Entries of the same case, kernel
and B are replaced.

--add-counters adds the counters a newer emulator counts (sectors,
wavefronts) to a case recorded before them, from a run of today's kernels:
only to the kernels whose every recorded count is the same today (the same
kernel code), and it says which it left alone.
"""

import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True,
                        help="the baseline row's \"case\"")
    parser.add_argument("--bench", required=True, help="sympow-bench --json output")
    parser.add_argument("--fixture", default="perf/h100-calibration.json")
    parser.add_argument("--add-counters", action="store_true",
                        help="add the counters missing from the case's "
                        "entries where their other counts match")
    args = parser.parse_args()

    with open(args.bench) as f:
        bench = json.load(f)
    if bench.get("backend") != "emulator":
        parser.error("the counts must come from --backend emulator, not %r"
                     % bench.get("backend"))
    with open(args.fixture) as f:
        fixture = json.load(f)

    entries = {}
    for run in bench["runs"]:
        for k in run["kernels"]:
            key = (k["name"], run["B"])
            entry = entries.setdefault(key, {
                "case": args.case, "kernel": k["name"], "B": run["B"],
                "variant": bench["variant"],
                "resources": {"registers": k["registers"],
                              "shared_bytes": k["shared_bytes"]},
                "samples": []})
            c = k["counts"]
            entry["samples"].append({
                "T": run["T"], "grid": k["grid"], "block": k["block"],
                "static_shared_bytes": c["static_shared_bytes"],
                "dynamic_shared_bytes": c["dynamic_shared_bytes"],
                "global_load_distinct_bytes": c["global_load_distinct_bytes"],
                "global_store_distinct_bytes": c["global_store_distinct_bytes"],
                "total": c["total"], "heaviest": c["heaviest"]})
    if args.add_counters:
        add_counters(fixture, args.case, entries)
    else:
        replace_case(fixture, args.case, entries)
    with open(args.fixture, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")


def replace_case(fixture, case, entries):
    kept = [e for e in fixture["kernels"]
            if (e["case"] != case or (e["kernel"], e["B"]) not in entries)]
    for entry in entries.values():
        entry["samples"].sort(key=lambda s: s["T"])
    fixture["kernels"] = kept + list(entries.values())
    print("%d kernel entries for %r" % (len(entries), case))


def add_counters(fixture, case, entries):
    for e in fixture["kernels"]:
        if e["case"] != case:
            continue
        today = entries.get((e["kernel"], e["B"]))
        if today is None:
            print("%s: not in the run, left alone" % e["kernel"])
            continue
        by_t = {s["T"]: s for s in today["samples"]}
        differs = None
        for old in e["samples"]:
            new = by_t.get(old["T"])
            if new is None:
                differs = "no sample at T = %d" % old["T"]
                break
            for part in ("total", "heaviest"):
                for name, value in old[part].items():
                    if new[part].get(name) != value:
                        differs = "%s %s at T = %d: %s then, %s today" % (
                            part, name, old["T"], value, new[part].get(name))
                        break
                if differs:
                    break
            if differs:
                break
        if differs:
            print("%s: left alone, its code changed (%s)" % (e["kernel"], differs))
            continue
        added = set()
        for old in e["samples"]:
            new = by_t[old["T"]]
            for part in ("total", "heaviest"):
                for name, value in new[part].items():
                    if name not in old[part]:
                        old[part][name] = value
                        added.add(name)
        print("%s: added %s" % (e["kernel"], ", ".join(sorted(added)) or "nothing"))


if __name__ == "__main__":
    main()
