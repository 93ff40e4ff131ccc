#!/usr/bin/env bash
# Shared set-up of the README's two commands: installs what is missing
# (Debian packages), configures build/ once and builds. Idempotent: with
# everything in place it only runs an incremental `ninja`.
set -euo pipefail

SYMPOW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYMPOW_BUILD="${SYMPOW_BUILD:-$SYMPOW_ROOT/build}"
export SYMPOW_ROOT SYMPOW_BUILD

PACKAGES=(cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libgtest-dev python3 python3-numpy
          # the sanitizer build and the fuzz targets (scripts/sanitize.sh),
          # the property tests (test/Python/test_properties.py)
          clang-22 libclang-rt-22-dev python3-hypothesis)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "sympow: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

if [ ! -f "$SYMPOW_BUILD/build.ninja" ]; then
  echo "sympow: configuring $SYMPOW_BUILD"
  # Debian's python3 carries python3-numpy; the Python tests need it.
  cmake -G Ninja -S "$SYMPOW_ROOT" -B "$SYMPOW_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi

echo "sympow: building"
ninja -C "$SYMPOW_BUILD" -j "$(nproc)"
