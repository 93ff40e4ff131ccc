#!/usr/bin/env bash
# The main job: set up, build, compile the example layer through every stage
# of the pipeline (each written to build/main-job/), and run a layer of the
# same kind on the generated kernels (emulator) against the reference.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

OPT="$SYMPOW_BUILD/bin/sympow-opt"
EXAMPLE="$SYMPOW_ROOT/examples/layer.mlir"
OUT="$SYMPOW_BUILD/main-job"
mkdir -p "$OUT"

stage() {
  local file="$OUT/$1"
  shift
  "$OPT" "$EXAMPLE" "$@" -o "$file"
  echo "  $(basename "$file"): $(wc -l <"$file") lines"
}

echo
echo "== compiling $EXAMPLE (each stage in $OUT)"
stage 0-verified.mlir
stage 1-formulation.mlir --sympow-select-formulation
stage 2-decomposed.mlir --sympow-select-formulation --sympow-decompose-layer \
  --canonicalize --cse
stage 3-kernels.mlir --sympow-select-formulation --sympow-layer-to-kernels
stage 4-sm_90a-ptx.mlir --sympow-select-formulation --sympow-layer-to-kernels \
  --sympow-gpu-to-binary="chip=sm_90a format=isa"
echo
echo "== the layer, its formulation and its kernels"
grep -o 'formulation = <[^>]*>' "$OUT/1-formulation.mlir"
grep -o 'gpu.func @[a-z_]*' "$OUT/3-kernels.mlir"
echo
echo "== the decomposition"
grep -o '= sympow\.[a-z_]*' "$OUT/2-decomposed.mlir" | sort | uniq -c

echo
echo "== a layer of the same kind on the generated kernels (emulator) vs the reference"
"$SYMPOW_ROOT/examples/run-layer.sh" "$SYMPOW_BUILD"

echo
echo "== the default kernel library (examples/kernels.json) and the trainer example"
KERNELS="$SYMPOW_BUILD/kernels"
"$SYMPOW_BUILD/bin/sympow-aot" --config "$SYMPOW_ROOT/examples/kernels.json" \
  --out "$KERNELS"
echo "built: $KERNELS/lib/libsympow_kernels.{a,so}, $KERNELS/include/sympow_kernels.h" \
  "($(ls "$KERNELS"/*.cubin | wc -l) cubins, $(ls "$KERNELS"/*.ptx | wc -l) PTX," \
  "$(ls "$KERNELS"/*.emulator.so | wc -l) emulator builds)"
cmake -S "$SYMPOW_ROOT/examples/trainer" -B "$SYMPOW_BUILD/trainer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$KERNELS" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$SYMPOW_BUILD/trainer" >/dev/null
"$SYMPOW_BUILD/trainer/trainer" --tokens 24
