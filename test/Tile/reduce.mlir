// sympow_tile.column_sum, expand and contiguous accesses: lowered, then run
// on the emulator (every element holds its column's sum; 16-byte runs).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel sums --grid 1 --block 64 --arg f32:256=iota --arg f32:256 --arg f32:64 --print | FileCheck %s --check-prefix=SUMS
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel odd --grid 1 --block 6 --arg f32:12=iota --arg f32:12 --print | FileCheck %s --check-prefix=ODD

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
#b4 = #sympow_tile.blocked<threads = 64, per_thread = 4>
#o2 = #sympow_tile.blocked<threads = 6, per_thread = 2>

// Shuffles within each warp (16 threads per row of 64 columns: offsets 16),
// then one row per warp through workgroup memory.
// CHECK-LABEL: gpu.func @sums
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.barrier
// CHECK: vector.store
// CHECK: gpu.barrier
// CHECK: vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// SUMS: emulator: ok
// Column c of 4 rows of 64: c + (c + 64) + (c + 128) + (c + 192) = 4c + 384,
// in every row.
// SUMS: arg1 = [384, 388, 392, {{.*}}, 636, 384, 388, {{.*}}, 636]
// Thread t's x[4t] expanded over its 4 slots, the whole tile summed:
// 4 * (0 + 4 + ... + 252) = 32256, in the first 64 elements.
// SUMS: arg2 = [32256, 32256, {{.*}}, 32256]

// 3 columns of 2-element runs: no shuffles, sums through memory.
// CHECK-LABEL: gpu.func @odd
// CHECK-NOT: gpu.shuffle
// ODD: emulator: ok
// Rows [0 1 2] [3 4 5] [6 7 8] [9 10 11]: columns 18, 22, 26.
// ODD: arg1 = [18, 22, 26, 18, 22, 26, 18, 22, 26, 18, 22, 26]

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @sums(%x: memref<?xf32>, %cols: memref<?xf32>, %all: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<256xindex, #b4>
      %v = sympow_tile.load %x[%i] contiguous : memref<?xf32> -> tensor<256xf32, #b4>
      %c = sympow_tile.column_sum %v {columns = 64} : tensor<256xf32, #b4>
      sympow_tile.store %c, %cols[%i] contiguous : tensor<256xf32, #b4>, memref<?xf32>
      %t = sympow_tile.range : tensor<64xindex, #b1>
      %four = arith.constant dense<4> : tensor<64xindex, #b1>
      %at = arith.muli %t, %four : tensor<64xindex, #b1>
      %zero = arith.constant dense<0.0> : tensor<64xf32, #b1>
      %yes = arith.constant dense<true> : tensor<64xi1, #b1>
      %w = sympow_tile.load %x[%at] mask %yes, %zero : memref<?xf32> -> tensor<64xf32, #b1>
      %wide = sympow_tile.expand %w : tensor<64xf32, #b1> -> tensor<256xf32, #b4>
      %s = sympow_tile.column_sum %wide {columns = 1} : tensor<256xf32, #b4>
      %n = arith.constant dense<64> : tensor<256xindex, #b4>
      %first = arith.cmpi ult, %i, %n : tensor<256xindex, #b4>
      sympow_tile.store %s, %all[%i] mask %first contiguous : tensor<256xf32, #b4>, memref<?xf32>
      gpu.return
    }
    gpu.func @odd(%x: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 6, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<12xindex, #o2>
      %v = sympow_tile.load %x[%i] : memref<?xf32> -> tensor<12xf32, #o2>
      %c = sympow_tile.column_sum %v {columns = 3} : tensor<12xf32, #o2>
      sympow_tile.store %c, %out[%i] : tensor<12xf32, #o2>, memref<?xf32>
      gpu.return
    }
  }
}
