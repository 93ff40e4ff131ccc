#!/usr/bin/env bash
# Shared set-up of the sanitizer build (sourced by scripts/sanitize.sh and
# scripts/fuzz.sh): clang 22 with AddressSanitizer + UndefinedBehaviorSanitizer
# over the whole project, plus the libFuzzer targets of test/Fuzz, in
# $SYMPOW_SAN_BUILD (default build-san/). Idempotent: configures once, then
# builds incrementally. Every compile runs under `nice` so a developer's
# main build keeps its cores. docs/Reliability.md describes it.
set -euo pipefail

SYMPOW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYMPOW_SAN_BUILD="${SYMPOW_SAN_BUILD:-$SYMPOW_ROOT/build-san}"
export SYMPOW_ROOT SYMPOW_SAN_BUILD
SAN_CLANG=/usr/lib/llvm-22/bin/clang
SAN_NICE=(nice -n "${SYMPOW_SAN_NICE:-15}")

# clang-22, its sanitizer and libFuzzer runtimes: installed by setup.sh.
if [ ! -x "$SAN_CLANG++" ] ||
   [ ! -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "sympow: clang-22 or libclang-rt-22-dev missing: run scripts/setup.sh" >&2
  exit 1
fi

# Sanitizer reports fail the run; leaks are reported too.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in
# instrumented code (inline in our translation units) while the uninstrumented
# Debian libLLVM/MLIR hands the same memory out without unpoisoning it: false
# use-after-poison reports. Compiler-instrumented checks are unaffected.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allow_user_poisoning=0:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only"
if [ ! -f "$SYMPOW_SAN_BUILD/build.ninja" ]; then
  echo "sympow: configuring $SYMPOW_SAN_BUILD (clang 22, ASan + UBSan, fuzz targets)"
  cmake -G Ninja -S "$SYMPOW_ROOT" -B "$SYMPOW_SAN_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$SAN_CLANG" -DCMAKE_CXX_COMPILER="$SAN_CLANG++" \
    -DCMAKE_C_FLAGS="$SAN_FLAGS" -DCMAKE_CXX_FLAGS="$SAN_FLAGS" \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DSYMPOW_FUZZ=ON \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi

# What the sanitizer tests and the fuzz targets need (not the kernel
# library, Python or benchmark tests: docs/Reliability.md says why).
SAN_TARGETS=(sympow-unit-tests SympowReferenceTests SympowRuntimeTests
             sympow-emulator-tests sympow-opt sympow-emulate sympow-aot
             sympow-run sympow-bench sympow-fuzz-targets)
san_build() {
  "${SAN_NICE[@]}" ninja -C "$SYMPOW_SAN_BUILD" -j "${SYMPOW_SAN_JOBS:-$(nproc)}" "$@"
}
