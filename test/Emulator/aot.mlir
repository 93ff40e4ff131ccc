// Ahead of time: the kernels of other tests compiled into shared objects
// (no LLVM needed to load them), then run from those with the same results
// and the same reports as through the JIT.
// RUN: sympow-emulate %S/reduce.mlir --emit-shared-object %t.reduce.so
// RUN: sympow-emulate --shared-object %t.reduce.so --kernel reduce --grid 4 --block 64 --arg f32:256=iota --arg f32:4 --print | FileCheck %s --check-prefix=REDUCE
// REDUCE: emulator: ok
// REDUCE: arg1 = [2016, 6112, 10208, 14304]
// RUN: sympow-emulate %S/reduce-race.mlir --emit-shared-object %t.race.so
// RUN: not sympow-emulate --shared-object %t.race.so --kernel reduce --block 64 --arg f32:64=iota --arg f32:1 | FileCheck %s --check-prefix=RACE
// RACE: emulator: race on workgroup memory at byte offset 4 in kernel 'reduce', block (0, 0, 0)
// RUN: sympow-emulate %S/mma.mlir --emit-shared-object %t.mma.so
// RUN: sympow-emulate --shared-object %t.mma.so --kernel mma_bf16 --block 32 --arg bf16:256=iota --arg bf16:128=1 --arg f32:128 --print | FileCheck %s --check-prefix=MMA
// MMA: emulator: ok
// MMA: arg2 = [120, 120, 120, 120, 120, 120, 120, 120, 376,
// RUN: not sympow-emulate --shared-object %t.missing.so --kernel k 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: sympow-emulate: cannot load {{.*}}missing.so: {{.*}}No such file

module {
}
