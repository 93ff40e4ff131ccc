// Per-element indices and per-row / per-column values of matrix tiles, on
// the emulator, in mma<warps = [2, 2]> (32 x 16: each warp a 16 x 8 block).
// @causal: matrix_range 0 >= matrix_range 1, as 1 or 0 (a causal mask);
// @causal_i32 the same on i32 ranges.
// @broadcast: g = iota; matrix_load stride 0 transposed gives g[i] in every
// column of row i, stride 0 gives g[j] in every row of column j; their
// difference is i - j (gate differences G_i - G_j).
// @column: matrix_load stride 0 transposed row_stride 3 from offset 1 gives
// g[1 + 3 i] in every column of row i: column 1 of a [32][3] buffer as
// per-row values (a query's q_a read from q as staged).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel causal --grid 1 --block 128 --arg f32:512 --print | FileCheck %s --check-prefix=CAUSAL
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel causal_i32 --grid 1 --block 128 --arg f32:512 --print | FileCheck %s --check-prefix=CAUSAL
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel broadcast --grid 1 --block 128 --arg f32:32=iota --arg f32:512 --print | FileCheck %s --check-prefix=BROADCAST
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel column --grid 1 --block 128 --arg f32:96=iota --arg f32:512 --print | FileCheck %s --check-prefix=COLUMN
// RUN: sympow-opt %s | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK-LABEL: gpu.func @causal
// CHECK-NOT: sympow_tile.
// CHECK-LABEL: gpu.func @causal_i32
// CHECK-NOT: sympow_tile.
// CHECK: arith.cmpi uge, {{.*}} : vector<{{.*}}xi32>
// CHECK-LABEL: gpu.func @broadcast
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @column
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: gpu.return

// ROUNDTRIP: sympow_tile.matrix_load %{{.*}}[%{{.*}}] stride 0 transposed row_stride 3 : memref<?xf32> -> tensor<32x16xf32, #sympow_tile.mma<warps = [2, 2]>>

// CAUSAL: emulator: ok
// Rows 0, 1 and 15 of 16 columns.
// CAUSAL: arg0 = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0,
// CAUSAL-SAME: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]

// BROADCAST: emulator: ok
// BROADCAST: arg1 = [0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, 1, 0, -1,
// Row 31: 31 - j.
// BROADCAST-SAME: 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16]

// COLUMN: emulator: ok
// Rows 0 and 1, then row 31: 1 + 3 i.
// COLUMN: arg1 = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4,
// COLUMN-SAME: 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94, 94]

#mma = #sympow_tile.mma<warps = [2, 2]>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @causal(%out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %i = sympow_tile.matrix_range 0 : tensor<32x16xindex, #mma>
      %j = sympow_tile.matrix_range 1 : tensor<32x16xindex, #mma>
      %keep = arith.cmpi uge, %i, %j : tensor<32x16xindex, #mma>
      %one = arith.constant dense<1.0> : tensor<32x16xf32, #mma>
      %zero = arith.constant dense<0.0> : tensor<32x16xf32, #mma>
      %mask = arith.select %keep, %one, %zero : tensor<32x16xi1, #mma>, tensor<32x16xf32, #mma>
      sympow_tile.matrix_store %mask, %out[%c0] stride 16 : tensor<32x16xf32, #mma>, memref<?xf32>
      gpu.return
    }
    gpu.func @causal_i32(%out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %i = sympow_tile.matrix_range 0 : tensor<32x16xi32, #mma>
      %j = sympow_tile.matrix_range 1 : tensor<32x16xi32, #mma>
      %keep = arith.cmpi uge, %i, %j : tensor<32x16xi32, #mma>
      %one = arith.constant dense<1.0> : tensor<32x16xf32, #mma>
      %zero = arith.constant dense<0.0> : tensor<32x16xf32, #mma>
      %mask = arith.select %keep, %one, %zero : tensor<32x16xi1, #mma>, tensor<32x16xf32, #mma>
      sympow_tile.matrix_store %mask, %out[%c0] stride 16 : tensor<32x16xf32, #mma>, memref<?xf32>
      gpu.return
    }
    gpu.func @broadcast(%g: memref<?xf32>, %out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %gi = sympow_tile.matrix_load %g[%c0] stride 0 transposed : memref<?xf32> -> tensor<32x16xf32, #mma>
      %gj = sympow_tile.matrix_load %g[%c0] stride 0 : memref<?xf32> -> tensor<32x16xf32, #mma>
      %d = arith.subf %gi, %gj : tensor<32x16xf32, #mma>
      sympow_tile.matrix_store %d, %out[%c0] stride 16 : tensor<32x16xf32, #mma>, memref<?xf32>
      gpu.return
    }
    gpu.func @column(%g: memref<?xf32>, %out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %gi = sympow_tile.matrix_load %g[%c1] stride 0 transposed row_stride 3 : memref<?xf32> -> tensor<32x16xf32, #mma>
      sympow_tile.matrix_store %gi, %out[%c0] stride 16 : tensor<32x16xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
