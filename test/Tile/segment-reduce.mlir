// sympow_tile.segment_reduce: every element gets its segment's sum or
// maximum. One element a thread (R = 1): segments of 4 threads (xor
// shuffles by 1 and 2). Two a thread (R = 2): segments of 8 (the thread's
// pair, then shuffles by 1 and 2), of 64 (a warp: shuffles by 1 to 16) and
// of 2 (the thread's own pair, no shuffle). No workgroup memory, no barrier.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel segments --grid 1 --block 64 --arg f32:64=iota --arg f32:128=iota --arg f32:64 --arg f32:128 --arg f32:128 --arg f32:128 --print | FileCheck %s --check-prefix=VALUES
// CHECK-LABEL: gpu.func @segments
// CHECK-NOT: gpu.barrier
// The R = 1 sum over 4 threads.
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %[[ONE]]
// CHECK: arith.addf
// CHECK: gpu.shuffle xor
// CHECK: arith.addf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// VALUES: emulator: ok
// x = 0, 1, ..., 63 in fours: 6 (0 + 1 + 2 + 3) four times, 22, ...; the
// last four 60 + 61 + 62 + 63 = 246.
// VALUES: arg2 = [6, 6, 6, 6, 22, 22, 22, 22, 38, {{.*}}, 246, 246, 246, 246]
// y = 0, 1, ..., 127 in eights: 28 eight times, 92, ...; the last 988.
// VALUES: arg3 = [28, 28, 28, 28, 28, 28, 28, 28, 92, 92, {{.*}}, 988, 988]
// Maxima of 64: 63 for the first warp's elements, 127 for the second's.
// VALUES: arg4 = [63, 63, {{.*}}, 63, 127, 127, {{.*}}, 127, 127]
// The thread's own pair: 1, 1, 5, 5, ..., 253, 253.
// VALUES: arg5 = [1, 1, 5, 5, 9, 9, {{.*}}, 249, 249, 253, 253]

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @segments(%x: memref<?xf32>, %y: memref<?xf32>, %quads: memref<?xf32>, %eights: memref<?xf32>, %warps: memref<?xf32>, %pairs: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<64xindex, #b1>
      %v = sympow_tile.load %x[%i] : memref<?xf32> -> tensor<64xf32, #b1>
      %q = sympow_tile.segment_reduce sum %v {segment = 4} : tensor<64xf32, #b1>
      sympow_tile.store %q, %quads[%i] : tensor<64xf32, #b1>, memref<?xf32>
      %j = sympow_tile.range : tensor<128xindex, #b2>
      %w = sympow_tile.load %y[%j] : memref<?xf32> -> tensor<128xf32, #b2>
      %e = sympow_tile.segment_reduce sum %w {segment = 8} : tensor<128xf32, #b2>
      sympow_tile.store %e, %eights[%j] : tensor<128xf32, #b2>, memref<?xf32>
      %m = sympow_tile.segment_reduce max %w {segment = 64} : tensor<128xf32, #b2>
      sympow_tile.store %m, %warps[%j] : tensor<128xf32, #b2>, memref<?xf32>
      %p = sympow_tile.segment_reduce sum %w {segment = 2} : tensor<128xf32, #b2>
      sympow_tile.store %p, %pairs[%j] : tensor<128xf32, #b2>, memref<?xf32>
      gpu.return
    }
  }
}
