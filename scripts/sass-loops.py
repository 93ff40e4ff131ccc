#!/usr/bin/env python3
"""The SASS of one kernel, loop by loop: what each loop body issues.

    scripts/sass-loops.py CUBIN KERNEL [--ops] [--from ADDR --to ADDR]

CUBIN comes from sympow-aot (e.g. `sympow-aot --no-library --no-cache --arch
sm_90a --out /tmp/k --variant "p=2,...,formulation=chunked"`). For each loop
(a backward branch to a label) it prints the body's address range, its
static instruction count, barriers, HGMMA/HMMA, FFMA/FMUL, LDGSTS and the
`@!PT` pads ptxas inserts (they issue like any instruction); then the most
live registers (nvdisasm -plr) and every spill (STL/LDL). --ops prints the
opcode histogram of each loop (or of --from/--to, hex addresses). A loop's
static count includes its rarely taken branches (a chunk's first step, a
hand-over): read those ranges with --from/--to.

nvdisasm comes from PATH or PyPI's nvidia-cuda-nvdisasm (docs/GPU.md).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys


def nvdisasm():
    found = shutil.which("nvdisasm")
    if found:
        return found
    for path in glob.glob(os.path.join(sys.prefix, "lib", "python3*",
                                       "site-packages", "nvidia", "*", "bin",
                                       "nvdisasm")):
        return path
    for path in glob.glob(os.path.expanduser(
            "~/.pyenv/versions/*/lib/python3*/site-packages/nvidia/*/bin/"
            "nvdisasm")):
        return path
    sys.exit("sass-loops: nvdisasm not found (pip install "
             "nvidia-cuda-nvdisasm, or put it on PATH)")


def instructions(cubin, kernel):
    """(address, text, live registers) of each instruction, and labels."""
    out = subprocess.run([nvdisasm(), "-plr", cubin], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    inside, labels, pending, body = False, {}, [], []
    for line in out:
        if line.startswith(".text." + kernel + ":") or \
                line.strip().startswith(".text." + kernel + ":"):
            inside = True
            continue
        if inside and re.match(r"^\s*\.text\.", line) and body:
            break
        if not inside:
            continue
        label = re.match(r"^\s*(\.L_x_\d+):", line)
        if label:
            pending.append(label.group(1))
            continue
        m = re.match(r"^\s+/\*([0-9a-f]{4,})\*/\s+([^;]*);(.*)", line)
        if not m:
            continue
        address = int(m.group(1), 16)
        for name in pending:
            labels[name] = address
        pending = []
        live = re.match(r"\s*//\s*\|\s*(\d+)", m.group(3))
        body.append((address, m.group(2).strip(),
                     int(live.group(1)) if live else 0))
    if not body:
        sys.exit(f"sass-loops: no kernel {kernel} in {cubin}")
    return body, labels


def opcode(text):
    words = text.split()
    return words[1] if words[0].startswith("@") and len(words) > 1 else words[0]


def summary(body):
    count = lambda pred: sum(1 for _, t, _ in body if pred(t))
    return ("%d instructions: BAR %d, HGMMA %d, HMMA %d, FFMA %d, FMUL %d, "
            "LDGSTS %d, @!PT pads %d" % (
                len(body), count(lambda t: "BAR.SYNC" in t),
                count(lambda t: "HGMMA" in t), count(lambda t: "HMMA" in t),
                count(lambda t: opcode(t).startswith("FFMA")),
                count(lambda t: opcode(t).startswith("FMUL")),
                count(lambda t: "LDGSTS" in t),
                count(lambda t: t.startswith("@!PT"))))


def histogram(body):
    ops = collections.Counter(opcode(t).split(".")[0] for _, t, _ in body)
    return ", ".join(f"{op} {n}" for op, n in ops.most_common())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cubin")
    parser.add_argument("kernel")
    parser.add_argument("--ops", action="store_true",
                        help="each loop's opcode histogram")
    parser.add_argument("--from", dest="lo", help="hex address")
    parser.add_argument("--to", dest="hi", help="hex address")
    args = parser.parse_args()
    body, labels = instructions(args.cubin, args.kernel)
    if args.lo or args.hi:
        lo = int(args.lo or "0", 16)
        hi = int(args.hi or "ffffffff", 16)
        part = [x for x in body if lo <= x[0] <= hi]
        print(f"{lo:#x}-{hi:#x}: {summary(part)}")
        print("  " + histogram(part))
        return
    print(f"{args.kernel}: {summary(body)}; at most "
          f"{max(l for _, _, l in body)} registers live")
    for address, text, _ in body:
        target = re.search(r"BRA.*`\((\.L_x_\d+)\)", text)
        if target and labels.get(target.group(1), address + 1) <= address:
            start = labels[target.group(1)]
            loop = [x for x in body if start <= x[0] <= address]
            print(f"loop {start:#x}-{address:#x}: {summary(loop)}")
            if args.ops:
                print("  " + histogram(loop))
    spills = [(a, t) for a, t, _ in body if re.match(r"(STL|LDL)", opcode(t))]
    print(f"spill instructions: {len(spills)}")
    for address, text in spills:
        print(f"  {address:#x} {text}")


if __name__ == "__main__":
    main()
