#!/usr/bin/env bash
# The sanitizer stage of the test command (scripts/test.sh runs it after the
# main ctest): builds build-san/ (clang 22, AddressSanitizer +
# UndefinedBehaviorSanitizer, scripts/sanitize-setup.sh) and runs there
#   units:  sympow-unit-tests, SympowReferenceTests, sympow-emulator-tests
#           (the emulator's fibers are annotated for ASan:
#           runtime/emulator/lib/Fiber.cpp)
#   lit:    the whole lit suite on the instrumented tools
#   ctest:  sympow-run.* (tools driven by Python scripts) and runtime.*
#           (SympowRuntimeTests with the fake CUDA driver they need)
#   fuzz:   ctest -L fuzz: each libFuzzer target for a bounded time from
#           its seed corpus, and its regression inputs (test/Fuzz)
# Any sanitizer report fails the stage. docs/Reliability.md.
#   scripts/sanitize.sh [units|lit|ctest|fuzz ...]   (default: all four)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/sanitize-setup.sh"

stages=("$@")
((${#stages[@]})) || stages=(units lit ctest fuzz)

echo "sympow: building $SYMPOW_SAN_BUILD"
san_build "${SAN_TARGETS[@]}"

failed=()
run_stage() {
  local name=$1
  shift
  local start=$SECONDS
  echo "sympow-san: == $name"
  if "$@"; then
    echo "sympow-san: $name passed ($((SECONDS - start)) s)"
  else
    echo "sympow-san: $name FAILED ($((SECONDS - start)) s)"
    failed+=("$name")
  fi
}

units() {
  local bin=$SYMPOW_SAN_BUILD/bin logs=$SYMPOW_SAN_BUILD/san-logs rc=0
  mkdir -p "$logs"
  local t
  for t in sympow-unit-tests SympowReferenceTests sympow-emulator-tests; do
    # One binary at a time, its tests in parallel shards.
    local shards=${SYMPOW_SAN_JOBS:-$(nproc)} i pids=()
    for ((i = 0; i < shards; ++i)); do
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
        "$bin/$t" --gtest_brief=1 > "$logs/$t.$i.log" 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do
      if ! wait "${pids[$i]}"; then
        echo "sympow-san: $t (shard $i) failed:"
        tail -n 60 "$logs/$t.$i.log"
        rc=1
      fi
    done
    echo "sympow-san: $t done"
  done
  return $rc
}

lit_suite() {
  /usr/lib/llvm-22/bin/lit -sv -j "${SYMPOW_SAN_JOBS:-$(nproc)}" \
    "$SYMPOW_SAN_BUILD/test"
}

ctest_tools() {
  (cd "$SYMPOW_SAN_BUILD" && ctest --output-on-failure \
     -j "${SYMPOW_SAN_JOBS:-$(nproc)}" -R '^(sympow-run|runtime)\.')
}

fuzz() {
  (cd "$SYMPOW_SAN_BUILD" && ctest --output-on-failure \
     -j "${SYMPOW_SAN_JOBS:-$(nproc)}" -L fuzz)
}

for stage in "${stages[@]}"; do
  case $stage in
    units) run_stage units units ;;
    lit) run_stage lit lit_suite ;;
    ctest) run_stage ctest ctest_tools ;;
    fuzz) run_stage fuzz fuzz ;;
    *) echo "sanitize.sh: unknown stage '$stage' (units, lit, ctest, fuzz)" >&2
       exit 2 ;;
  esac
done
if ((${#failed[@]})); then
  echo "sympow-san: failed: ${failed[*]}"
  exit 1
fi
echo "sympow-san: all passed"
