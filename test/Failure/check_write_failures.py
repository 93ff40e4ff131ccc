#!/usr/bin/python3
"""Failure injection for every command that writes files (docs/Reliability.md):

  check_write_failures.py SHIM SYMPOW_RUN SYMPOW_EMULATE SYMPOW_AOT TMPDIR

SHIM is libsympow-write-fault.so (WriteFault.c), preloaded to make writes
into the test folder fail as a full disk (ENOSPC after N bytes, partial
write first), a read-only file system (EROFS on open) or a kill (SIGKILL
after N bytes) would. For each of

  sympow-run  --out/--final-state (four .npy files, reference backend)
  sympow-emulate --emit-shared-object
  sympow-aot --out (report, cubins and a kernel library)

with outputs from an earlier run in place: a failed run exits non-zero with
a one-line error naming the file and why, and leaves every old output byte
for byte and no temporary; a killed run leaves the old outputs, and the
next run removes what it left. A target that is a directory and the same
file twice are covered by test/Reference/check_sympow_run_errors.py and
test/Tools/aot-atomic.test. If a small tmpfs can be mounted (root), the same
is checked on a really full disk.
"""
import errno
import hashlib
import os
import shutil
import subprocess
import sys

import numpy as np

SHIM, RUN, EMULATE, AOT, TMP = sys.argv[1:6]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
errors = []


def digest(folder):
    """Every file under folder (relative path -> sha256); links as links."""
    out = {}
    for base, dirs, files in os.walk(folder):
        for f in files + [d for d in dirs if os.path.islink(
                os.path.join(base, d))]:
            p = os.path.join(base, f)
            rel = os.path.relpath(p, folder)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            else:
                out[rel] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def run(cmd, cwd, fault=None, timeout=900):
    env = dict(os.environ)
    if fault:
        env["LD_PRELOAD"] = SHIM
        env["SYMPOW_FAULT_PATH"] = cwd + "/"
        env.update(fault)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def check_case(tool, name, cmd, cwd, fault, outputs, why, tolerate_left=()):
    before = digest(cwd)
    proc = run(cmd, cwd, fault)
    after = digest(cwd)
    label = f"{tool}: {name}"
    killed = fault.get("SYMPOW_FAULT_KILL") == "1"
    budget = int(fault.get("SYMPOW_FAULT_BYTES", "0"))
    if killed:
        # The tool killed (-9), or a child of it (sympow-emulate's and
        # sympow-aot's linker): then the tool fails cleanly. Either way the
        # old outputs stay.
        if proc.returncode == 0 and budget < 10000:
            errors.append(f"{label}: exit 0: the kill never came")
    else:
        if proc.returncode == 0:
            if budget < 10000:
                errors.append(f"{label}: exit 0 although writes failed")
            return  # a large budget the outputs did not reach
        if not any(w in proc.stderr for w in why):
            errors.append(f"{label}: stderr {proc.stderr.strip()[-300:]!r} "
                          f"does not say why ({' or '.join(why)})")
    for f in outputs:
        if f in before and before[f] != after.get(f):
            errors.append(f"{label}: old {f} was "
                          f"{'removed' if f not in after else 'changed'}")
    new = set(after) - set(before)
    changed = {f for f in set(before) & set(after) if before[f] != after[f]}
    gone = set(before) - set(after)
    # What a kill leaves must be temporaries, which the next run removes
    # (so a later case may see an earlier kill's temporaries go).
    gone = {f for f in gone if not any(t in f for t in tolerate_left)}
    if killed:
        new = {f for f in new if not any(t in f for t in tolerate_left)}
    if new or changed or gone:
        errors.append(f"{label}: files changed: new {sorted(new)}, "
                      f"changed {sorted(changed)}, gone {sorted(gone)}")


def check_next_run_cleans(tool, cmd, cwd, temporaries):
    proc = run(cmd, cwd)
    if proc.returncode != 0:
        errors.append(f"{tool}: the run after a kill failed: {proc.stderr}")
    left = [f for f in digest(cwd) if any(t in f for t in temporaries)]
    if left:
        errors.append(f"{tool}: temporaries left after the next run: {left}")


FAULTS = [
    ("read-only file system", {"SYMPOW_FAULT_OPEN": "1"}),
    ("full disk at once", {"SYMPOW_FAULT_BYTES": "0"}),
    ("full disk after 100 bytes", {"SYMPOW_FAULT_BYTES": "100"}),
    ("full disk after 3000 bytes", {"SYMPOW_FAULT_BYTES": "3000"}),
    ("full disk after 20000 bytes", {"SYMPOW_FAULT_BYTES": "20000"}),
    ("EIO after 5000 bytes", {"SYMPOW_FAULT_BYTES": "5000",
                              "SYMPOW_FAULT_ERRNO": str(errno.EIO)}),
]
KILLS = [(f"killed after {n} bytes", {"SYMPOW_FAULT_BYTES": str(n),
                                       "SYMPOW_FAULT_KILL": "1"})
         for n in (0, 200, 3000, 20000)]
WHY = ["No space left on device", "Read-only file system",
       "Input/output error"]


def sympow_run():
    work = os.path.join(TMP, "run")
    os.makedirs(work)
    r = np.random.default_rng(0)
    for n, h in (("q", 4), ("k", 2), ("v", 2)):
        np.save(os.path.join(work, n + ".npy"),
                r.standard_normal((1, 16, h, 8)).astype(np.float32))
    np.save(os.path.join(work, "beta.npy"),
            (1 + np.tanh(r.standard_normal((1, 16, 2)))).astype(np.float32))
    cmd = [RUN, "--backend", "reference", "--power", "2", "--q", "q.npy",
           "--k", "k.npy", "--v", "v.npy", "--beta", "beta.npy",
           "--rope-dims", "8", "--out", "y.npy", "--final-state", "S.npy",
           "Z.npy", "c.npy"]
    if run(cmd, work).returncode != 0:
        errors.append("sympow-run: the first run failed")
        return
    # Different outputs from now on: an old file kept is visibly the old one.
    cmd[cmd.index("--power") + 1] = "2"
    cmd += ["--scale", "0.5"]
    outs = ["y.npy", "S.npy", "Z.npy", "c.npy"]
    for name, fault in FAULTS:
        check_case("sympow-run", name, cmd, work, fault, outs, WHY)
    for name, fault in KILLS:
        check_case("sympow-run", name, cmd, work, fault, outs, WHY,
                   tolerate_left=[".sympow-run-"])
    check_next_run_cleans("sympow-run", cmd, work, [".sympow-run-"])


def sympow_emulate():
    work = os.path.join(TMP, "emulate")
    os.makedirs(work)
    src = os.path.join(ROOT, "test", "Emulator", "reduce.mlir")
    cmd = [EMULATE, src, "--emit-shared-object", "k.so"]
    if run(cmd, work).returncode != 0:
        errors.append("sympow-emulate: the first run failed")
        return
    # Another kernel file: the old k.so is visibly the old one.
    cmd[1] = os.path.join(ROOT, "test", "Emulator", "shuffle.mlir")
    for name, fault in FAULTS:
        check_case("sympow-emulate", name, cmd, work, fault, ["k.so"],
                   WHY + ["failed"])
    for name, fault in KILLS:
        check_case("sympow-emulate", name, cmd, work, fault, ["k.so"], WHY,
                   tolerate_left=[".sympow-emulate-"])
    os.mkdir(os.path.join(work, "dir.so"))
    proc = run([EMULATE, cmd[1], "--emit-shared-object", "dir.so"], work)
    if proc.returncode == 0 or "directory" not in proc.stderr:
        errors.append(f"sympow-emulate: a directory as the output: exit "
                      f"{proc.returncode}, {proc.stderr.strip()!r}")
    if os.listdir(os.path.join(work, "dir.so")):
        errors.append("sympow-emulate: wrote into a directory named as output")


def sympow_aot():
    work = os.path.join(TMP, "aot")
    os.makedirs(work)
    cache = os.path.join(TMP, "aot-cache")
    base = [AOT, "--arch", "sm_80", "--cache-dir", cache, "--out", "lib"]
    first = base + ["--variant", "p=2,d=16,e=16,dtype=f32,formulation=attention"]
    proc = run(first, work)
    if proc.returncode != 0:
        errors.append(f"sympow-aot: the first build failed: {proc.stderr}")
        return
    cmd = base + ["--variant", "p=4,d=16,e=16,dtype=f32,formulation=attention"]
    # The rebuild's modules are cached once, so each case only writes.
    warm = os.path.join(TMP, "aot-warm")
    os.makedirs(warm)
    run(cmd, warm)
    for name, fault in FAULTS[:2] + FAULTS[3:5] + KILLS[1:3]:
        check_case("sympow-aot", name, cmd, work, fault, [], WHY + ["failed"],
                   tolerate_left=[".sympow-aot-staging-"])
    check_next_run_cleans("sympow-aot", cmd, work, [".sympow-aot-staging-"])


def tmpfs_full_disk():
    """A really full disk: sympow-run into a 64 KB tmpfs, where root may
    mount one (skipped elsewhere)."""
    mnt = os.path.join(TMP, "tmpfs")
    os.makedirs(mnt)
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
            capture_output=True).returncode != 0:
        print("tmpfs: cannot mount one here, skipped")
        return
    try:
        r = np.random.default_rng(1)
        for n, h in (("q", 4), ("k", 2), ("v", 2)):
            np.save(os.path.join(TMP, "run", n + ".npy"),
                    r.standard_normal((1, 1200, h, 8)).astype(np.float32))
        with open(os.path.join(mnt, "y.npy"), "wb") as f:
            f.write(b"old output")
        cmd = [RUN, "--backend", "reference", "--power", "2",
               "--q", os.path.join(TMP, "run", "q.npy"),
               "--k", os.path.join(TMP, "run", "k.npy"),
               "--v", os.path.join(TMP, "run", "v.npy"),
               "--out", os.path.join(mnt, "y.npy")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 2 or "No space left" not in proc.stderr:
            errors.append(f"tmpfs: exit {proc.returncode}, {proc.stderr!r}")
        if sorted(os.listdir(mnt)) != ["y.npy"] or open(
                os.path.join(mnt, "y.npy"), "rb").read() != b"old output":
            errors.append(f"tmpfs: folder now {sorted(os.listdir(mnt))}")
        print("tmpfs: checked")
    finally:
        subprocess.run(["umount", mnt])


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    only = os.environ.get("SYMPOW_FAILURE_ONLY", "run,emulate,aot,tmpfs")
    for key, check in (("run", sympow_run), ("emulate", sympow_emulate),
                       ("aot", sympow_aot), ("tmpfs", tmpfs_full_disk)):
        if key in only.split(","):
            check()
            print(f"{key}: done, {len(errors)} problem(s) so far", flush=True)
    for e in errors:
        print("FAIL:", e)
    print("ok" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
