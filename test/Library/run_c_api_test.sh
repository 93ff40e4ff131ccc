#!/bin/sh
# usage: run_c_api_test.sh LIBRARY_DIR c_api_test.c WORK_DIR
# Compiles the test as C11 against the library's header, links the shared
# library, runs it.
set -eu
lib=$1 src=$2 work=$3
mkdir -p "$work"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -O1 -I "$lib/include" "$src" \
  -o "$work/c_api_test" -L "$lib/lib" -lsympow_kernels \
  -Wl,-rpath,"$lib/lib" -lpthread -lm
# The shared library exports the C API and nothing else.
others=$(nm -D --defined-only "$lib/lib/libsympow_kernels.so" |
  awk '{print $3}' | grep -v '^sympow_' || true)
if [ -n "$others" ]; then
  echo "FAIL: libsympow_kernels.so exports more than sympow_*: $others"
  exit 1
fi
exec "$work/c_api_test"
