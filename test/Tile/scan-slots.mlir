// sympow_tile.scan on tiles of several elements a thread.
// Two elements a thread (R = 2): segments of 8 (four threads) forward and
// reversed, and of 64 (a warp) forward: a running sum over the thread's
// two elements, then shuffles of the threads' totals; no workgroup memory.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel slot_scans --grid 1 --block 64 --arg f32:128=iota --arg f32:128 --arg f32:128 --arg f32:128 --print | FileCheck %s --check-prefix=SLOTS
// CHECK-LABEL: gpu.func @slot_scans
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// SLOTS: emulator: ok
// x = 0, 1, ..., 127. Forward in segments of 8: 0, 1, 3, ..., 28, then
// 8, 17, ...; the last segment 120 + ... + 127 = 988 at 127.
// SLOTS: arg1 = [0, 1, 3, 6, 10, 15, 21, 28, 8, 17, {{.*}}, 120, 241, 363, 486, 610, 735, 861, 988]
// Reversed in segments of 8: 28 at 0 down to 7, ...
// SLOTS: arg2 = [28, 28, 27, 25, 22, 18, 13, 7, 92, 84, {{.*}}, 988, 868, 747, 625, 502, 378, 253, 127]
// Forward in segments of 64: 62 * 63 / 2 = 1953 at 62, 2016 at 63, then
// 64, 129, ..., and 64 + ... + 127 = 6112 at 127.
// SLOTS: arg3 = [0, 1, 3, {{.*}}, 1953, 2016, 64, 129, {{.*}}, 5985, 6112]

#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @slot_scans(%x: memref<?xf32>, %forward: memref<?xf32>, %backward: memref<?xf32>, %warp: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<128xindex, #b2>
      %v = sympow_tile.load %x[%i] : memref<?xf32> -> tensor<128xf32, #b2>
      %f = sympow_tile.scan %v {segment = 8} : tensor<128xf32, #b2>
      sympow_tile.store %f, %forward[%i] : tensor<128xf32, #b2>, memref<?xf32>
      %r = sympow_tile.scan %v {segment = 8, reverse} : tensor<128xf32, #b2>
      sympow_tile.store %r, %backward[%i] : tensor<128xf32, #b2>, memref<?xf32>
      %w = sympow_tile.scan %v {segment = 64} : tensor<128xf32, #b2>
      sympow_tile.store %w, %warp[%i] : tensor<128xf32, #b2>, memref<?xf32>
      gpu.return
    }
  }
}
