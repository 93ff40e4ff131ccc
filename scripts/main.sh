#!/usr/bin/env bash
# The main job: set up, build, and compile the example layer through the
# pipeline that exists today, printing the IR after each stage.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

OPT="$SYMPOW_BUILD/bin/sympow-opt"
EXAMPLE="$SYMPOW_ROOT/examples/layer.mlir"

echo
echo "== $EXAMPLE (verified and printed)"
"$OPT" "$EXAMPLE"
echo
echo "== after --sympow-select-formulation"
"$OPT" "$EXAMPLE" --sympow-select-formulation
