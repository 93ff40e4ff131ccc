#!/usr/bin/env bash
# Every test: set up, build, then ctest (GoogleTest units, the reference's
# property tests, the tool tests and the whole lit suite).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

cd "$SYMPOW_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
