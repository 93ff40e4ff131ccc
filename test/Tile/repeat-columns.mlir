// sympow_tile.repeat_columns: a row_reduce result at other widths, in
// registers. The input is iota over a 32 x 16 tile in mma<warps = [2, 1]>,
// element (i, j) = 16 i + j; row i's maximum is 16 i + 15. Narrowed to 8
// columns and widened to 24 every element is its row's maximum; the input
// itself widened to 24 repeats its 16 columns (element (i, j) = 16 i +
// j mod 16).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel widths --grid 1 --block 64 --arg f32:512=iota --arg f32:256 --arg f32:768 --arg f32:768 --print | FileCheck %s --check-prefix=EMU

// CHECK-LABEL: gpu.func @widths
// CHECK-NOT: gpu.barrier
// CHECK: vector.extract
// CHECK: vector.insert
// CHECK-NOT: sympow_tile.
// CHECK: gpu.return

// EMU: emulator: ok
// EMU: arg1 = [15, 15, 15, 15, 15, 15, 15, 15, 31, 31,
// EMU-SAME: 511, 511]
// EMU: arg2 = [15, 15,
// EMU-SAME: 15, 31, 31,
// EMU-SAME: 511, 511]
// Row 0: 0 .. 15, then 0 .. 7 again; row 1 starts at 16.
// EMU: arg3 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17,
// EMU-SAME: 510, 511, 496, 497, 498, 499, 500, 501, 502, 503]

#mma = #sympow_tile.mma<warps = [2, 1]>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @widths(%x: memref<?xf32>, %narrow: memref<?xf32>, %wide: memref<?xf32>, %cycled: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %t = sympow_tile.matrix_load %x[%c0] stride 16 : memref<?xf32> -> tensor<32x16xf32, #mma>
      %m = sympow_tile.row_reduce max %t : tensor<32x16xf32, #mma>
      %m8 = sympow_tile.repeat_columns %m : tensor<32x16xf32, #mma> -> tensor<32x8xf32, #mma>
      %m24 = sympow_tile.repeat_columns %m8 : tensor<32x8xf32, #mma> -> tensor<32x24xf32, #mma>
      %t24 = sympow_tile.repeat_columns %t : tensor<32x16xf32, #mma> -> tensor<32x24xf32, #mma>
      sympow_tile.matrix_store %m8, %narrow[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %m24, %wide[%c0] stride 24 : tensor<32x24xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %t24, %cycled[%c0] stride 24 : tensor<32x24xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
