#!/usr/bin/env bash
# Regenerates docs/generated/ (the dialect and pass reference, written by
# add_mlir_doc from the TableGen files) from a configured build. The test
# `docs.up-to-date` fails when they drift from the code.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYMPOW_BUILD:-$ROOT/build}"
ninja -C "$BUILD" mlir-doc
mkdir -p "$ROOT/docs/generated"
cp "$BUILD"/docs/Dialects/*.md "$BUILD"/docs/SympowPasses.md "$ROOT/docs/generated/"
echo "docs/generated/ updated"
