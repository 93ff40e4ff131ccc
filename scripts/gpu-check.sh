#!/usr/bin/env bash
# Runs sympow's kernels on the GPU at hand, in one pass that fits a short
# lease: every formulation checked against the f64 reference, the timing
# sweep behind docs/Performance.md's goals, then compute-sanitizer on small
# runs. Results go to OUT (default gpu-check/): one sympow-bench JSON per
# run, a log per step and summary.txt, the table printed last.
#
#   scripts/gpu-check.sh [OUT]      (SYMPOW_BENCH names the binary,
#                                    default build/bin/sympow-bench)
#
#   STAGES="check time" scripts/gpu-check.sh OUT   runs some of the stages
#
# Steps that fail are recorded and the script goes on; it exits 1 if any did.
set -u
out=${1:-gpu-check}
bench=${SYMPOW_BENCH:-build/bin/sympow-bench}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
failed=0

base="p=2,d=64,e=64,hq=8,h=8,dtype=bf16,gate=data"
learned="rope=learned,base=8192,rate_scale=6.283185307179586"

# step NAME SECONDS ARGS...: one sympow-bench run with its JSON and log.
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$bench" --backend cuda --json "$out/$name.json" "$@" \
    >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || failed=1
  printf '%-28s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - start))" |
    tee -a "$summary"
}

# sanitize NAME TOOL SECONDS ARGS...: compute-sanitizer over a small run.
sanitize() {
  local name=$1 tool=$2 limit=$3
  shift 3
  local start=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 3 \
    "$bench" --backend cuda --repeat 1 --warmup 0 "$@" >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || failed=1
  printf '%-28s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - start))" \
    "$(grep -m1 'ERROR SUMMARY' "$out/$name.log")" | tee -a "$summary"
}

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total \
  --format=csv | tee -a "$summary"

# STAGES picks the parts (default all, in this order): check time sanitize.
stages=" ${STAGES:-check time sanitize} "
wants() { [[ $stages == *" $1 "* ]]; }

# 1. Correctness: y (and the state) against the f64 reference, per kernel
#    path: the default chunk (the model's choice), chunks 64 and 256 (with an
#    initial state), 96 (f16, GQA, a tail), attention, learned rotary,
#    decode, d = 128.
if wants check; then
  step check-default 120 --variant "$base,formulation=chunked" --tokens 2000 --state --repeat 3
  step check-chunk64 120 --variant "$base,formulation=chunked,chunk=64" --tokens 2048 --repeat 3
  step check-chunk256 120 --variant "$base,formulation=chunked,chunk=256" --tokens 2048 --state --repeat 3
  step check-chunk96-f16 120 --variant "p=2,d=64,e=64,hq=8,h=4,dtype=f16,gate=data,formulation=chunked,chunk=96" --tokens 1000 --repeat 3
  step check-attention 120 --variant "$base,formulation=attention" --tokens 2048 --repeat 3
  step check-learned 120 --variant "$base,$learned,formulation=chunked" --tokens 2048 --repeat 3
  step check-learned256 120 --variant "$base,$learned,formulation=chunked,chunk=256" --tokens 2048 --repeat 3
  step check-decode 120 --variant "$base,$learned,formulation=recurrent" --tokens 1 --batch 4
  step check-d128 120 --variant "p=2,d=128,e=128,hq=8,h=8,dtype=bf16,gate=data,formulation=chunked" --tokens 1024 --repeat 3
fi

# 2. Timing: the goals' cases (docs/Performance.md) at the default chunk and
#    at the chunks measured before (perf/h100-measured.json).
if wants time; then
  step time-default 240 --no-check --variant "$base,formulation=chunked" --tokens 4096,16384,65536
  step time-learned 120 --no-check --variant "$base,$learned,formulation=chunked" --tokens 4096,16384
  step time-attention 120 --no-check --variant "$base,formulation=attention" --tokens 4096,16384
  step time-decode-b1 60 --no-check --variant "$base,$learned,formulation=recurrent" --tokens 1 --batch 1 --repeat 100
  step time-decode-b32 60 --no-check --variant "$base,$learned,formulation=recurrent" --tokens 1 --batch 32 --repeat 50
  step time-d128 120 --no-check --variant "p=2,d=128,e=128,hq=8,h=8,dtype=bf16,gate=data,formulation=chunked" --tokens 16384
  step time-chunk256 240 --no-check --variant "$base,formulation=chunked,chunk=256" --tokens 4096,16384,65536
  step time-chunk64 240 --no-check --variant "$base,formulation=chunked,chunk=64" --tokens 4096,16384,65536
fi

# 3. compute-sanitizer: out-of-bounds accesses, then shared-memory races.
if wants sanitize; then
  sanitize memcheck-default memcheck 120 --variant "$base,formulation=chunked" --tokens 1100
  sanitize memcheck-attention memcheck 120 --variant "$base,formulation=attention" --tokens 256
  sanitize memcheck-decode memcheck 120 --variant "$base,$learned,formulation=recurrent" --tokens 1
  sanitize racecheck-default racecheck 180 --variant "$base,formulation=chunked" --tokens 1100
  sanitize racecheck-attention racecheck 120 --variant "$base,formulation=attention" --tokens 256
fi

cat "$summary"
exit $failed
