// sympow_tile.scan: shuffles within each segment, no workgroup memory and
// no barrier; run on the emulator against the sums written out below.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel scans --grid 1 --block 64 --arg f32:64=iota --arg f32:64 --arg f32:64 --print | FileCheck %s --check-prefix=SUMS

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>

// Segments of 32, forward: 5 rounds of shuffles up; of 8, reversed: 3
// rounds down.
// CHECK-LABEL: gpu.func @scans
// CHECK-NOT: workgroup(
// CHECK-COUNT-5: gpu.shuffle up
// CHECK-COUNT-3: gpu.shuffle down
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// SUMS: emulator: ok
// x = 0, 1, ..., 63. Forward in segments of 32: 0, 1, 3, 6, ..., then
// 31 * 32 / 2 = 496 at 31, and from 32 on again: 32, 65, 99, ..., and
// 32 + 33 + ... + 63 = 1520 at 63.
// SUMS: arg1 = [0, 1, 3, 6, 10, {{.*}}, 465, 496, 32, 65, 99, {{.*}}, 1457, 1520]
// Reversed in segments of 8: 0 + ... + 7 = 28, 28, 27, 25, 22, 18, 13, 7,
// then 8 + ... + 15 = 92, ...; the last segment 56 + ... + 63 = 476 down
// to 63.
// SUMS: arg2 = [28, 28, 27, 25, 22, 18, 13, 7, 92, 84, {{.*}}, 476, 420, 363, 305, 246, 186, 125, 63]

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scans(%x: memref<?xf32>, %forward: memref<?xf32>, %backward: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<64xindex, #b1>
      %v = sympow_tile.load %x[%i] : memref<?xf32> -> tensor<64xf32, #b1>
      %f = sympow_tile.scan %v {segment = 32} : tensor<64xf32, #b1>
      sympow_tile.store %f, %forward[%i] : tensor<64xf32, #b1>, memref<?xf32>
      %r = sympow_tile.scan %v {segment = 8, reverse} : tensor<64xf32, #b1>
      sympow_tile.store %r, %backward[%i] : tensor<64xf32, #b1>, memref<?xf32>
      gpu.return
    }
  }
}
