#!/usr/bin/env bash
# Every test: set up, build, then ctest (GoogleTest units, the reference's
# property tests, the tool tests, failure injection and the whole lit
# suite); then the sanitizer stage (scripts/sanitize.sh: the units, the lit
# suite and the tool checks built with ASan + UBSan, and each fuzz target
# for a bounded time). Arguments go to the main ctest only and skip the
# sanitizer stage (e.g. ./scripts/test.sh -R lit); SYMPOW_SANITIZE=0 skips
# it too. docs/Reliability.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

status=0
(cd "$SYMPOW_BUILD" && ctest --output-on-failure -j "$(nproc)" "$@") || status=$?
if (($# == 0)) && [ "${SYMPOW_SANITIZE:-1}" != 0 ]; then
  "$SYMPOW_ROOT/scripts/sanitize.sh" || status=1
fi
exit $status
