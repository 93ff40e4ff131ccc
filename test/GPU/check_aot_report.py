#!/usr/bin/env python3
"""Checks a sympow-aot report.json: every kernel of every requested arch has
a cubin (an ELF file) and PTX, launch metadata and the argument list,
kernels with d <= 64 do not spill, sm_90a kernels keep their occupancy
floors, bf16/f16 attention kernels on the
tensor-core path and bf16/f16 chunk_states/chunk_state_pass/chunk_output
(every d) contain
tensor-core instructions and f32 kernels (and the other chunked ones) none, and
every variant has the formulations it admits (warped and blend: attention
only). Prints one line per kernel (the registers and spills it found).

usage: check_aot_report.py REPORT ARCHS MODULES [--floor-archs ARCHS]
                           [--relaxed-ok REGEX@ARCH ...]

--floor-archs: the archs whose occupancy floors must hold (default sm_90a);
--relaxed-ok: kernels (a regex on "module kernel") known to be built below
their floor on ARCH, which are then not failures."""

# Each formulation's kernels and their first and last arguments.
KERNELS = {
    "attention": {
        # Rotating 16-bit layers the tile kernel takes: q and k rotated once
        # (rotate_qk, after chunk_counts), read as halves (below).
        "attention": (["q", "k", "v"], ["y", "B", "T"]),
        "chunk_counts": ([], ["counts", "B", "T"]),
        "rotate_qk": (["q", "k", "counts"],
                      ["q_rotated_halves", "k_rotated_halves", "B", "T"]),
    },
    "recurrent": {
        # At T = 1 its last program per state writes y (arrival counters).
        "recurrent_state": (["q", "k", "v"],
                            ["num", "den", "y", "arrivals", "B", "T"]),
        "recurrent_output": (["q", "k", "v"], ["num", "den", "B", "T"]),
    },
    "chunked": {
        "chunk_states": (["k", "v"], ["decay", "B", "T"]),
        "chunk_scan": (["S", "Z", "c"], ["decay", "B", "T"]),
        # (the tile chunk_output's states: dS_halves, below)
        "chunk_state_pass": ([], ["dS", "dZ", "B", "T"]),
        "chunk_keys": (["k", "counts"], ["k_rotated", "B", "T"]),
        # The tile chunk_output reads the keys chunk_keys rotated.
        "chunk_output": (["q"], ["y", "B", "T"]),
        "chunk_counts": ([], ["counts", "c", "B", "T"]),
    },
}

import json
import os
import re
import sys


def main():
    import argparse
    parser = argparse.ArgumentParser(usage=__doc__.split("usage: ")[1])
    parser.add_argument("report")
    parser.add_argument("archs")
    parser.add_argument("modules", type=int)
    parser.add_argument("--floor-archs", default="sm_90a")
    parser.add_argument("--relaxed-ok", action="append", default=[])
    options = parser.parse_args()
    report_path, archs, expected = (options.report, options.archs.split(","),
                                    options.modules)
    floor_archs = options.floor_archs.split(",")
    relaxed_ok = [(re.compile(r.rsplit("@", 1)[0]), r.rsplit("@", 1)[1])
                  for r in options.relaxed_ok]
    out_dir = os.path.dirname(report_path)
    with open(report_path) as f:
        kernels = json.load(f)["kernels"]
    failures = []
    seen = set()
    for k in kernels:
        v = k["variant"]
        seen.add((k["name"], k["arch"]))
        print("%-60s %-7s regs=%3d spill_st=%d spill_ld=%d smem=%d tc=%d" % (
            k["name"], k["arch"], k["registers"], k["spill_store_bytes"],
            k["spill_load_bytes"], k["shared_bytes"],
            k["tensor_core_instructions"]))
        with open(os.path.join(out_dir, k["cubin"]), "rb") as c:
            if c.read(4) != b"\x7fELF":
                failures.append("%s: cubin is not an ELF file" % k["cubin"])
        with open(os.path.join(out_dir, k["ptx"])) as p:
            if ".entry " + k["kernel"] not in p.read():
                failures.append("%s: PTX without the entry" % k["ptx"])
        if k["launch"]["block"] != [k["threads_per_block"], 1, 1]:
            failures.append("%s: launch block disagrees" % k["name"])
        first, last = KERNELS[k["formulation"]][k["kernel"]]
        # 16-bit chunks longer than 64: the tile chunk_output, which reads
        # the rotated keys and the state pass's dS_halves.
        chunk = re.search(r"chunked(\d+)$", k["name"])
        tile = (v["dtype"] != "f32" and chunk is not None
                and int(chunk.group(1)) > 64)
        if k["kernel"] == "chunk_output":
            rotated = tile and v["rope"] != "none"
            first = first + ["k_rotated" if rotated else "k", "v"]
            last = (["dS_halves"] if tile else ["dS", "dZ"]) + last
        if k["kernel"] == "chunk_state_pass" and tile:
            last = ["dS_halves", "B", "T"]
        # Rotating 16-bit attention is the tile kernel with both halves of q
        # and k, past 48 KiB in dynamic shared memory (the matrix's d = e =
        # 128 takes 51 KB; AttentionTile.h decides).
        halves = (v["dtype"] != "f32" and v["rope"] in ("uniform", "learned"))
        if k["kernel"] == "attention" and halves:
            first = ["q_rotated_halves", "k_rotated_halves", "v"]
        if k["args"][:len(first)] != first or k["args"][-len(last):] != last:
            failures.append("%s %s: unexpected argument list %s" % (
                k["name"], k["kernel"], k["args"]))
        if v["d"] <= 64 and (k["spill_store_bytes"] or k["spill_load_bytes"]):
            failures.append("%s %s spills (d = %d)" % (k["name"], k["arch"], v["d"]))
        # ptxas may build a kernel below its occupancy floor rather than
        # spill (AssembleKernels.h); on sm_90a every floor must hold (the
        # H100 model's predictions assume them), and on the archs asked for.
        known = any(regex.search(k["name"] + " " + k["kernel"]) and arch == k["arch"]
                    for regex, arch in relaxed_ok)
        if (k["arch"] in floor_archs and "floor_relaxed_from" in k
                and not known):
            failures.append("%s %s %s: built below its floor of %d programs "
                            "per SM" % (k["name"], k["kernel"], k["arch"],
                                        k["floor_relaxed_from"]))
        if k["formulation"] == "chunked":
            # chunk_states and chunk_output run phi blocks on tensor cores
            # for bf16/f16 (the default chunk is one where they fit).
            heavy = k["kernel"] in ("chunk_states", "chunk_state_pass",
                                    "chunk_output")
            tc = k["tensor_core_instructions"]
            if heavy and v["dtype"] != "f32" and tc == 0:
                failures.append("%s %s %s: no tensor-core instructions" % (
                    k["name"], k["kernel"], k["arch"]))
            if (v["dtype"] == "f32" or not heavy) and tc != 0:
                failures.append("%s %s %s: unexpected tensor-core instructions" % (
                    k["name"], k["kernel"], k["arch"]))
        if k["kernel"] != "attention":
            continue
        if k["path"] == "mma" and k["tensor_core_instructions"] == 0:
            failures.append("%s %s: no tensor-core instructions" % (k["name"], k["arch"]))
        if v["dtype"] == "f32" and k["tensor_core_instructions"] != 0:
            failures.append("%s %s: f32 must not use tensor cores" % (k["name"], k["arch"]))
        if v["dtype"] != "f32" and v["rope"] not in ("warped", "blend") and k["path"] != "mma":
            failures.append("%s: bf16/f16 should take the tensor-core path" % k["name"])
    names = {n for n, _ in seen}
    # formulation=all: every variant with a rotating-count or no schedule has
    # all three formulations.
    by_variant = {}
    for k in kernels:
        key = json.dumps(k["variant"] | {"chunk": 0}, sort_keys=True)
        by_variant.setdefault(key, set()).add(k["formulation"])
    for key, forms in by_variant.items():
        v = json.loads(key)
        if "formulation=" in v["string"]:
            continue  # one formulation asked for
        want = {"attention"} if v["rope"] in ("warped", "blend") else {
            "attention", "chunked", "recurrent"}
        if v["p"] > 4 and v["d"] >= 64:
            want = {"attention"}  # the state is too large to build
        if forms != want:
            failures.append("variant %s: formulations %s, expected %s" % (
                key, sorted(forms), sorted(want)))
    for n in names:
        for a in archs:
            if (n, a) not in seen:
                failures.append("%s: no kernel for %s" % (n, a))
    if len(names) != expected:
        failures.append("expected %d variants, found %d" % (expected, len(names)))
    for f in failures:
        print("FAIL:", f)
    print("checked %d kernels" % len(kernels))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
