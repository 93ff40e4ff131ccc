#!/usr/bin/env bash
# Runs a small layer like examples/layer.mlir (p = 2, GQA, data gate, learned
# rotation, final state) on the reference backend and prints what came out.
set -euo pipefail
BUILD="${1:-build}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
/usr/bin/python3 - <<'PY'
import numpy as np
r = np.random.default_rng(0)
B, T, Hq, H, d = 2, 64, 8, 4, 16
np.save("q.npy", r.standard_normal((B, T, Hq, d)).astype(np.float32))
np.save("k.npy", r.standard_normal((B, T, H, d)).astype(np.float32))
np.save("v.npy", r.standard_normal((B, T, H, d)).astype(np.float32))
np.save("log_g.npy", np.log(r.uniform(0.9, 1.0, (B, T, H))).astype(np.float32))
np.save("beta.npy", (1 + np.tanh(r.standard_normal((B, T, H)))).astype(np.float32))
PY
"$BUILD/bin/sympow-run" --backend reference --power 2 --dtype bf16 \
  --q q.npy --k k.npy --v v.npy --log-g log_g.npy --beta beta.npy \
  --rope-base 8192 --rope-scale 6.283185307179586 \
  --out y.npy --final-state S.npy Z.npy c.npy
/usr/bin/python3 - <<'PY'
import numpy as np
y, S, Z, c = (np.load(f) for f in ("y.npy", "S.npy", "Z.npy", "c.npy"))
print(f"y {y.shape} {y.dtype}, max |y| = {abs(y).max():.4f}")
print(f"final state S {S.shape}, Z {Z.shape}, c {c.shape}; c[0] = {c[0]}")
PY
