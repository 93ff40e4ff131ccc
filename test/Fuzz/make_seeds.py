#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (test/Fuzz/corpus/<target>/)
from the tests' own inputs. Run from anywhere; rewrites the folders:

    /usr/bin/python3 test/Fuzz/make_seeds.py

ir:         every `// -----` split of the lit tests' .mlir files (and the
            examples) that uses the sympow dialect, up to 16 KB
npy:        .npy files as numpy writes them (the dtypes, byte orders,
            header versions and shapes test/Reference's NpyTest covers)
capi:       a few fixed byte strings (the target reads them as choices)
aot-config: the JSON configs of test/Library, examples and test/Tools
"""
import io
import pathlib
import random
import re
import shutil

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "Fuzz" / "corpus"


def fresh(name):
    d = OUT / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


def ir():
    d = fresh("ir")
    sources = sorted((ROOT / "test").rglob("*.mlir")) + sorted(
        (ROOT / "examples").glob("*.mlir"))
    n = 0
    for path in sources:
        if "Fuzz" in path.parts:
            continue
        for i, part in enumerate(re.split(r"^// -----\s*$", path.read_text(),
                                          flags=re.M)):
            text = "\n".join(line for line in part.splitlines()
                             if not line.startswith("// RUN:"))
            if "sympow." not in text or len(text) > 16 * 1024:
                continue
            rel = path.relative_to(ROOT).with_suffix("")
            name = "-".join(rel.parts[1:]) + f"-{i}.mlir"
            (d / name).write_text(text.strip() + "\n")
            n += 1
    return n


def npy():
    d = fresh("npy")
    r = np.random.default_rng(0)
    arrays = {
        "f32-4d": r.standard_normal((1, 3, 2, 4)).astype(np.float32),
        "f64-2d": r.standard_normal((2, 3)),
        "f32-be": r.standard_normal((5,)).astype(">f4"),
        "f64-be": r.standard_normal((2, 2)).astype(">f8"),
        "scalar": np.float64(1.5),
        "empty": np.zeros((0, 4), np.float32),
        "special": np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45], np.float32),
        "fortran": np.asfortranarray(r.standard_normal((2, 3))),
        "int32": np.arange(6, dtype=np.int32).reshape(2, 3),
    }
    for name, a in arrays.items():
        b = io.BytesIO()
        np.save(b, a)
        (d / f"{name}.npy").write_bytes(b.getvalue())
    # A version 2.0 header.
    b = io.BytesIO()
    np.lib.format.write_array(b, np.ones((2, 2), np.float32), version=(2, 0))
    (d / "v2.npy").write_bytes(b.getvalue())
    return len(arrays) + 1


def capi():
    d = fresh("capi")
    r = random.Random(0)
    for i in range(12):
        (d / f"seed-{i}").write_bytes(
            bytes(r.randrange(256) for _ in range(r.choice([16, 64, 256]))))
    return 12


def aot_config():
    d = fresh("aot-config")
    n = 0
    for path in [ROOT / "examples" / "kernels.json",
                 ROOT / "test" / "Library" / "kernels.json"]:
        (d / f"{path.parent.name}-{path.name}").write_text(path.read_text())
        n += 1
    for test in sorted((ROOT / "test" / "Tools").glob("aot-config*.test")):
        for i, m in enumerate(re.finditer(r"echo '(\{.*\})'", test.read_text())):
            (d / f"{test.stem}-{i}.json").write_text(m.group(1) + "\n")
            n += 1
    return n


if __name__ == "__main__":
    for name, make in [("ir", ir), ("npy", npy), ("capi", capi),
                       ("aot-config", aot_config)]:
        print(f"{name}: {make()} seeds")
