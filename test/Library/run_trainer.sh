#!/bin/sh
# usage: run_trainer.sh LIBRARY_DIR TRAINER_SOURCE_DIR WORK_DIR
# Configures and builds the trainer example as a separate CMake project
# that finds the library with find_package, then runs it.
set -eu
lib=$1 src=$2 work=$3
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_PREFIX_PATH="$lib" \
  -DCMAKE_BUILD_TYPE=Release
cmake --build "$work"
exec "$work/trainer"
