#!/usr/bin/env bash
# Runs one libFuzzer target (ctest fuzz.<name>, scripts/fuzz.sh):
#   run_fuzzer.sh FUZZER SECONDS SEEDS WORK [libFuzzer flags...]
#     fuzzes for SECONDS from the seed corpus SEEDS (read only: new inputs
#     go to WORK/corpus, a crash, hang or leak to WORK/artifacts/).
#   run_fuzzer.sh FUZZER regressions DIR WORK
#     runs every input in DIR once (the inputs that once failed).
# Exits non-zero on a crash, a hang (-timeout), a leak, running out of
# memory (-rss_limit_mb) or any sanitizer report.
set -euo pipefail
fuzzer=$1 seconds=$2 seeds=$3 work=$4
shift 4
mkdir -p "$work/corpus" "$work/artifacts"
# Reports abort the run; sympow code must not leak either.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
common=(-timeout="${SYMPOW_FUZZ_TIMEOUT:-15}" -rss_limit_mb=3072
        -artifact_prefix="$work/artifacts/")

if [ "$seconds" = regressions ]; then
  inputs=()
  [ -d "$seeds" ] && mapfile -t inputs < <(find "$seeds" -type f ! -name 'README*' | sort)
  if ((${#inputs[@]} == 0)); then
    echo "no regression inputs in $seeds"
    exit 0
  fi
  echo "running ${#inputs[@]} regression inputs of $seeds"
  exec "$fuzzer" "${common[@]}" "$@" "${inputs[@]}"
fi

echo "fuzzing $(basename "$fuzzer") for $seconds s from $seeds"
exec "$fuzzer" "${common[@]}" -max_total_time="$seconds" \
  -print_final_stats=1 "$@" "$work/corpus" "$seeds"
