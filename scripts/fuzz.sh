#!/usr/bin/env bash
# A long fuzz run (docs/Reliability.md):
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--runs N] [target ...] [-- libFuzzer flags]
# targets: ir npy capi aot-config (default: all, one after the other).
# Builds the targets in build-san/ (scripts/sanitize-setup.sh), then runs
# each from its seed corpus (test/Fuzz/corpus/<target>) plus what earlier
# runs found (build-san/test/Fuzz/work/<target>/corpus), with --jobs
# processes under nice. A crash, hang or leak stops the run with the input
# in build-san/test/Fuzz/work/<target>/artifacts/ and a non-zero exit; to
# keep it as a regression test, copy it into test/Fuzz/regressions/<target>/
# (ctest fuzz.<target>.regressions runs it from then on).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/sanitize-setup.sh"

seconds=3600 jobs=1 runs=""
targets=() extra=()
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    ir|npy|capi|aot-config) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
((${#targets[@]})) || targets=(ir npy capi aot-config)

san_build sympow-fuzz-targets
fuzz_dir=$SYMPOW_ROOT/test/Fuzz
for t in "${targets[@]}"; do
  work=$SYMPOW_SAN_BUILD/test/Fuzz/work/$t
  flags=()
  ((jobs > 1)) && flags+=(-jobs="$jobs" -workers="$jobs")
  [ -n "$runs" ] && flags+=(-runs="$runs")
  echo "sympow: fuzzing $t for up to $seconds s (${jobs} job(s))"
  "${SAN_NICE[@]}" "$fuzz_dir/run_fuzzer.sh" \
    "$SYMPOW_SAN_BUILD/bin/sympow-fuzz-$t" "$seconds" "$fuzz_dir/corpus/$t" \
    "$work" "${flags[@]}" "${extra[@]}"
done
