#!/usr/bin/env bash
# Runs a small layer like examples/layer.mlir (p = 2, GQA, data gate,
# learned rotation, bf16, final state) on the reference and on the generated
# kernels (emulator backend, chunked formulation), and prints how far apart
# they are against SPEC's bound (1e-2 of max|y| for bf16 inputs).
set -euo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
/usr/bin/python3 - <<'PY'
import numpy as np
r = np.random.default_rng(0)
B, T, Hq, H, d = 2, 100, 8, 4, 16
np.save("q.npy", r.standard_normal((B, T, Hq, d)).astype(np.float32))
np.save("k.npy", r.standard_normal((B, T, H, d)).astype(np.float32))
np.save("v.npy", r.standard_normal((B, T, H, d)).astype(np.float32))
np.save("log_g.npy", np.log(r.uniform(0.9, 1.0, (B, T, H))).astype(np.float32))
np.save("beta.npy", (1 + np.tanh(r.standard_normal((B, T, H)))).astype(np.float32))
PY
for backend in reference emulator; do
  "$BUILD/bin/sympow-run" --backend "$backend" --power 2 --dtype bf16 \
    --q q.npy --k k.npy --v v.npy --log-g log_g.npy --beta beta.npy \
    --rope-base 8192 --rope-scale 6.283185307179586 \
    --formulation chunked --chunk-size 32 \
    --out "y_$backend.npy" --final-state "S_$backend.npy" "Z_$backend.npy" \
    "c_$backend.npy"
done
/usr/bin/python3 - <<'PY'
import numpy as np
load = lambda stem, b: np.load(f"{stem}_{b}.npy").astype(np.float64)
y, ye = load("y", "reference"), load("y", "emulator")
S, Se = load("S", "reference"), load("S", "emulator")
err = abs(ye - y).max() / abs(y).max()
serr = abs(Se - S).max() / abs(S).max()
print(f"y {y.shape}: emulator vs reference max error {err:.2e} of max|y| "
      f"(SPEC bound for bf16: 1e-2)")
print(f"final state S {S.shape}: max error {serr:.2e} of max|S| (bound 1e-4)")
if not (err <= 1e-2 and serr <= 1e-4):
    raise SystemExit("the generated kernels disagree with the reference")
PY
