// sympow_tile.async_copy and async_wait: each thread's run copied from
// global to workgroup memory by cp.async, zeros where `read` is false,
// nothing where `mask` is false; the wait before anyone reads it.
// RUN: sympow-opt %s | sympow-opt | FileCheck %s --check-prefix=ROUND
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=PTX
// On the emulator: threads 0 and 1 copy their runs of 4, thread 2 writes
// zeros (read false), thread 3 copies nothing (mask false: its slots keep
// the 7 stored before); each thread then reads another's run.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel copy --grid 1 --block 4 --arg f32:16=iota --arg f32:16 --print | FileCheck %s --check-prefix=EMU
// Without the wait, the emulator reports the read of a run in flight.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | not sympow-emulate - --kernel nowait --grid 1 --block 4 --arg f32:16=iota --arg f32:16 2>&1 | FileCheck %s --check-prefix=RACE

// ROUND: sympow_tile.async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] elements 4 mask %{{.*}} read %{{.*}} : memref<?xf32>, memref<16xf32, #gpu.address_space<workgroup>>, tensor<4xindex, #{{.*}}>
// ROUND: sympow_tile.async_wait

// CHECK-LABEL: gpu.func @copy
// CHECK: scf.if
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %c4, %c0 : index
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 4, %[[N]] {bypassL1} : memref<?xf32> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.device_async_create_group %
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[G]] {numGroups = 0 : i32}
// CHECK: gpu.barrier

// One commit, by the wait, for the copies before it.
// PTX-NOT: cp.async.commit_group
// PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.commit_group;{{[^;]*}}cp.async.wait_group {{(\\09)?}}0;
// PTX-NOT: cp.async.commit_group

// EMU: emulator: ok
// EMU: arg1 = [4, 5, 6, 7, 0, 0, 0, 0, 7, 7, 7, 7, 0, 1, 2, 3]

// RACE: emulator: race on workgroup memory {{.*}} in kernel 'nowait'{{.*}}while the cp.async of thread

#b1 = #sympow_tile.blocked<threads = 4, per_thread = 1>
#b4 = #sympow_tile.blocked<threads = 4, per_thread = 4>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @copy(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%rows: memref<16xf32, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<4xindex, #b1>
      %c4 = arith.constant dense<4> : tensor<4xindex, #b1>
      %c2 = arith.constant dense<2> : tensor<4xindex, #b1>
      %c3 = arith.constant dense<3> : tensor<4xindex, #b1>
      %start = arith.muli %t, %c4 : tensor<4xindex, #b1>
      %at = sympow_tile.run %start : tensor<4xindex, #b1> -> tensor<16xindex, #b4>
      %seven = arith.constant dense<7.0> : tensor<16xf32, #b4>
      sympow_tile.store %seven, %rows[%at] contiguous : tensor<16xf32, #b4>, memref<16xf32, #gpu.address_space<workgroup>>
      %mask = arith.cmpi ult, %t, %c3 : tensor<4xindex, #b1>
      %read = arith.cmpi ult, %t, %c2 : tensor<4xindex, #b1>
      sympow_tile.async_copy %in[%start], %rows[%start] elements 4 mask %mask read %read
          : memref<?xf32>, memref<16xf32, #gpu.address_space<workgroup>>, tensor<4xindex, #b1>
      sympow_tile.async_wait
      gpu.barrier
      // Thread t reads the run of thread t + 1 (mod 4).
      %next = arith.addi %t, %c4 : tensor<4xindex, #b1>
      %one = arith.constant dense<1> : tensor<4xindex, #b1>
      %n1 = arith.addi %t, %one : tensor<4xindex, #b1>
      %other = arith.remui %n1, %c4 : tensor<4xindex, #b1>
      %from = arith.muli %other, %c4 : tensor<4xindex, #b1>
      %src = sympow_tile.run %from : tensor<4xindex, #b1> -> tensor<16xindex, #b4>
      %x = sympow_tile.load %rows[%src] contiguous : memref<16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32, #b4>
      sympow_tile.store %x, %out[%at] contiguous : tensor<16xf32, #b4>, memref<?xf32>
      gpu.return
    }
    gpu.func @nowait(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%rows: memref<16xf32, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<4xindex, #b1>
      %c4 = arith.constant dense<4> : tensor<4xindex, #b1>
      %start = arith.muli %t, %c4 : tensor<4xindex, #b1>
      sympow_tile.async_copy %in[%start], %rows[%start] elements 4
          : memref<?xf32>, memref<16xf32, #gpu.address_space<workgroup>>, tensor<4xindex, #b1>
      gpu.barrier
      %one = arith.constant dense<1> : tensor<4xindex, #b1>
      %n1 = arith.addi %t, %one : tensor<4xindex, #b1>
      %other = arith.remui %n1, %c4 : tensor<4xindex, #b1>
      %from = arith.muli %other, %c4 : tensor<4xindex, #b1>
      %src = sympow_tile.run %from : tensor<4xindex, #b1> -> tensor<16xindex, #b4>
      %at = sympow_tile.run %start : tensor<4xindex, #b1> -> tensor<16xindex, #b4>
      %x = sympow_tile.load %rows[%src] contiguous : memref<16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32, #b4>
      sympow_tile.store %x, %out[%at] contiguous : tensor<16xf32, #b4>, memref<?xf32>
      gpu.return
    }
  }
}
