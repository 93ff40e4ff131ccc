#!/usr/bin/env bash
# The profiler's reading of sympow's kernels on the GPU at hand (Nsight
# Compute, clocks as found), and the GPU model's constants measured there
# (scripts/gpu-constants.cu). One text report per case in OUT (default
# gpu-profile/) and constants.json.
#
#   scripts/gpu-profile.sh [OUT]    (SYMPOW_BENCH names the binary,
#                                    default build/bin/sympow-bench)
set -u
out=${1:-gpu-profile}
bench=${SYMPOW_BENCH:-build/bin/sympow-bench}
here=$(dirname "$0")
mkdir -p "$out"

if [ "${PROFILE_CONSTANTS:-1}" != 0 ]; then
  nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
    "$here/gpu-constants.cu" -o "$out/gpu-constants" &&
    "$out/gpu-constants" | tee "$out/constants.json"
fi

base="p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data"
learned="rope=learned,base=8192,rate_scale=6.283185307179586"

# profile NAME SECONDS BENCH-ARGS...: every kernel of one call of the layer.
profile() {
  local name=$1 limit=$2
  shift 2
  timeout "$limit" ncu --clock-control none --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section InstructionStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    "$bench" --backend cuda --no-check --repeat 1 --warmup 0 "$@" \
    >"$out/$name.txt" 2>&1
  echo "$name rc=$?"
}

profile default-16k 150 --variant "$base,formulation=chunked" --tokens 16384
profile attention-16k 150 --variant "$base,formulation=attention" --tokens 16384
profile learned-4k 100 --variant "$base,$learned,formulation=chunked" --tokens 4096
profile decode-b1 100 --variant "$base,$learned,formulation=recurrent" --tokens 1
