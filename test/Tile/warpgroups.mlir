// sympow_tile.warpgroups: warpgroup 2 of a 384-thread program stages 128
// floats (its tiles over 128 threads), warpgroups 0 and 1 read them after
// the barrier (tiles over 256 threads: out[t] = 2 in[t / 2]), and the
// whole program writes a tile of its 384 threads.
// RUN: sympow-opt %s | sympow-opt | FileCheck %s --check-prefix=ROUND
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel split --grid 1 --block 384 --arg f32:128=iota --arg f32:256 --arg f32:384 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=bin" | FileCheck %s --check-prefix=BIN
// @pipeline: each region loops on its own and meets the other at the
// program's barriers inside (two an iteration): the producer stages 128
// floats of `in` per iteration, the consumers sum what they read:
// out[t] = sum over i < 4 of in[128 i + t / 2] = 768 + 4 (t / 2).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s --check-prefix=LOOPS
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel pipeline --grid 1 --block 384 --arg f32:512=iota --arg f32:256 --print --counts | FileCheck %s --check-prefix=PIPE

// ROUND: sympow_tile.warpgroups first 2 count 1 {
// ROUND: sympow_tile.range : tensor<128xindex, #{{.*}}>
// ROUND: sympow_tile.warpgroups first 0 count 2 {

// The producer: warpgroup index >= 2 (the last, so no upper bound), its
// thread ids from 256 on.
// CHECK-LABEL: gpu.func @split
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128
// CHECK: %[[IN:.*]] = arith.cmpi uge, %[[WG]], %c2
// CHECK: scf.if %[[IN]] {
// CHECK: %[[T:.*]] = arith.subi %[[TID]], %c256
// CHECK: memref.load %{{.*}}[%[[T]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The consumers: warpgroups below 2, thread ids as they are.
// CHECK: %[[BELOW:.*]] = arith.cmpi ult, %[[WG]], %c2
// CHECK: scf.if %[[BELOW]] {
// CHECK-NOT: arith.subi
// CHECK: arith.divui %[[TID]], %c2
// CHECK: gpu.return

// EMU: emulator: ok
// EMU: arg1 = [0, 0, 2, 2, 4, 4,
// EMU-SAME: 254, 254]
// EMU: arg2 = [0, 1, 2,
// EMU-SAME: 383]

// BIN: gpu.binary

// Adjacent regions are one if-else chain (each thread runs one of them).
// LOOPS-LABEL: gpu.func @pipeline
// LOOPS: scf.if
// LOOPS: scf.for
// LOOPS: gpu.barrier {sympow_tile.region_barrier}
// LOOPS: } else {
// LOOPS-NEXT: arith.cmpi ult
// LOOPS-NEXT: scf.if
// LOOPS: scf.for
// LOOPS: gpu.barrier {sympow_tile.region_barrier}

// @overlap: adjacent regions whose ranges overlap stay two ifs (warpgroup 1
// runs both), as do the regions after one that covers every thread.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s --check-prefix=OVERLAP
// OVERLAP-LABEL: gpu.func @overlap
// OVERLAP: scf.if
// OVERLAP-NOT: else
// OVERLAP: arith.cmpi uge
// OVERLAP: scf.if
// OVERLAP-NOT: else
// OVERLAP: gpu.return

// Eight barriers: each opened once by both regions' threads.
// PIPE: emulator: ok
// PIPE: barriers 8 8
// PIPE: arg1 = [768, 768, 772, 772,
// PIPE-SAME: 1276, 1276]

#p = #sympow_tile.blocked<threads = 128, per_thread = 1>
#c = #sympow_tile.blocked<threads = 256, per_thread = 1>
#all = #sympow_tile.blocked<threads = 384, per_thread = 1>
!ws = memref<128xf32, #gpu.address_space<workgroup>>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @split(%in: memref<?xf32>, %out: memref<?xf32>, %ids: memref<?xf32>)
        workgroup(%staged: !ws) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 384, grid = [1, 1, B]>} {
      sympow_tile.warpgroups first 2 count 1 {
        %t = sympow_tile.range : tensor<128xindex, #p>
        %x = sympow_tile.load %in[%t] : memref<?xf32> -> tensor<128xf32, #p>
        sympow_tile.store %x, %staged[%t] : tensor<128xf32, #p>, !ws
      }
      gpu.barrier
      sympow_tile.warpgroups first 0 count 2 {
        %t = sympow_tile.range : tensor<256xindex, #c>
        %two = arith.constant dense<2> : tensor<256xindex, #c>
        %half = arith.divui %t, %two : tensor<256xindex, #c>
        %x = sympow_tile.load %staged[%half] : !ws -> tensor<256xf32, #c>
        %y = arith.addf %x, %x : tensor<256xf32, #c>
        sympow_tile.store %y, %out[%t] : tensor<256xf32, #c>, memref<?xf32>
      }
      %t = sympow_tile.range : tensor<384xindex, #all>
      %i = arith.index_cast %t : tensor<384xindex, #all> to tensor<384xi32, #all>
      %f = arith.uitofp %i : tensor<384xi32, #all> to tensor<384xf32, #all>
      sympow_tile.store %f, %ids[%t] : tensor<384xf32, #all>, memref<?xf32>
      gpu.return
    }
    gpu.func @pipeline(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%staged: !ws) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 384, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      sympow_tile.warpgroups first 2 count 1 {
        %t = sympow_tile.range : tensor<128xindex, #p>
        scf.for %i = %c0 to %c4 step %c1 {
          %c128 = arith.constant 128 : index
          %base = arith.muli %i, %c128 : index
          %from = sympow_tile.splat %base : tensor<128xindex, #p>
          %at = arith.addi %from, %t : tensor<128xindex, #p>
          %x = sympow_tile.load %in[%at] : memref<?xf32> -> tensor<128xf32, #p>
          sympow_tile.store %x, %staged[%t] : tensor<128xf32, #p>, !ws
          gpu.barrier
          gpu.barrier
        }
      }
      sympow_tile.warpgroups first 0 count 2 {
        %t = sympow_tile.range : tensor<256xindex, #c>
        %two = arith.constant dense<2> : tensor<256xindex, #c>
        %half = arith.divui %t, %two : tensor<256xindex, #c>
        %zero = arith.constant dense<0.0> : tensor<256xf32, #c>
        %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<256xf32, #c>) {
          gpu.barrier
          %x = sympow_tile.load %staged[%half] : !ws -> tensor<256xf32, #c>
          %next = arith.addf %acc, %x : tensor<256xf32, #c>
          gpu.barrier
          scf.yield %next : tensor<256xf32, #c>
        }
        sympow_tile.store %sum, %out[%t] : tensor<256xf32, #c>, memref<?xf32>
      }
      gpu.return
    }
    gpu.func @overlap(%out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 384, grid = [1, 1, B]>} {
      sympow_tile.warpgroups first 0 count 2 {
        %t = sympow_tile.range : tensor<256xindex, #c>
        %one = arith.constant dense<1.0> : tensor<256xf32, #c>
        sympow_tile.store %one, %out[%t] : tensor<256xf32, #c>, memref<?xf32>
      }
      sympow_tile.warpgroups first 1 count 1 {
        %t = sympow_tile.range : tensor<128xindex, #p>
        %two = arith.constant dense<2.0> : tensor<128xf32, #p>
        sympow_tile.store %two, %out[%t] : tensor<128xf32, #p>, memref<?xf32>
      }
      gpu.return
    }
  }
}
