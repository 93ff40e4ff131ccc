// sympow_tile.slot_sum: each thread's slots added up in registers (a
// vector reduction, no shuffle, no workgroup memory); run on the emulator,
// then a reversed scan adds the threads of each group of 4.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel sums --grid 1 --block 32 --arg f32:64=iota --arg f32:32 --arg f32:32 --print | FileCheck %s --check-prefix=SUMS

#b1 = #sympow_tile.blocked<threads = 32, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>

// CHECK-LABEL: gpu.func @sums
// CHECK-NOT: workgroup(
// CHECK: vector.reduction <add>, %{{.*}} : vector<2xf32> into f32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// SUMS: emulator: ok
// x = 0, 1, ..., 63, thread t's slots 2t and 2t + 1: 4t + 1.
// SUMS: arg1 = [1, 5, 9, 13, 17, {{.*}}, 121, 125]
// Reversed in groups of 4 threads: 1 + 5 + 9 + 13 = 28, 27, 22, 13; the
// last group 113 + 117 + 121 + 125 = 476 down to 125.
// SUMS: arg2 = [28, 27, 22, 13, 92, {{.*}}, 476, 363, 246, 125]

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @sums(%x: memref<?xf32>, %own: memref<?xf32>, %groups: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 32, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<32xindex, #b1>
      %j = sympow_tile.range : tensor<64xindex, #b2>
      %v = sympow_tile.load %x[%j] : memref<?xf32> -> tensor<64xf32, #b2>
      %s = sympow_tile.slot_sum %v : tensor<64xf32, #b2> -> tensor<32xf32, #b1>
      sympow_tile.store %s, %own[%i] : tensor<32xf32, #b1>, memref<?xf32>
      %g = sympow_tile.scan %s {segment = 4, reverse} : tensor<32xf32, #b1>
      sympow_tile.store %g, %groups[%i] : tensor<32xf32, #b1>, memref<?xf32>
      gpu.return
    }
  }
}
