#!/usr/bin/env bash
# The main job: set up, build, and compile the example layer through the
# pipeline that exists today, printing the IR after each stage; then run the
# same layer on the reference backend.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

OPT="$SYMPOW_BUILD/bin/sympow-opt"
EXAMPLE="$SYMPOW_ROOT/examples/layer.mlir"

stage() {
  echo
  echo "== $1"
  shift
  "$OPT" "$EXAMPLE" "$@"
}
stage "$EXAMPLE (verified)"
stage "after --sympow-select-formulation" --sympow-select-formulation
stage "after --sympow-decompose-layer" --sympow-select-formulation \
  --sympow-decompose-layer --canonicalize --cse

echo
echo "== sympow-run --backend reference (a small layer of the same kind)"
"$SYMPOW_ROOT/examples/run-reference.sh" "$SYMPOW_BUILD"
