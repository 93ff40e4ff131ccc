// sympow_tile.row_reduce: the lowering (shuffles over the quad, the warp
// columns through workgroup memory) and its values on the emulator. The
// input is iota over a 64 x 32 tile, element (i, j) = 32 i + j, in
// mma<warps = [2, 2]>: each warp column holds 16 of a row's 32 columns, so
// a row's maximum (column 31) reaches warp column 0 only through memory.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel rows --grid 1 --block 128 --arg f32:2048=iota --arg f32:2048 --arg f32:2048 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel one_column --grid 1 --block 64 --arg f32:512=iota --arg f32:512 --print | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: gpu.func @rows
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: arith.addf
// CHECK-NOT: sympow_tile.
// CHECK-LABEL: gpu.func @one_column
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// EMU: emulator: ok
// Row maxima: 31 for row 0, 63 for row 1, ..., 2047 for row 63.
// EMU: arg1 = [31, 31, 31,
// EMU-SAME: 31, 63, 63,
// EMU-SAME: 2015, 2047, 2047,
// Row sums: 32 * 32 i + 496.
// EMU: arg2 = [496, 496,
// EMU-SAME: 496, 1520, 1520,
// ONE: emulator: ok
// One warp column (mma<warps = [2, 1]>, 32 x 16): shuffles only; row i's
// maximum is 16 i + 15.
// ONE: arg1 = [15, 15,
// ONE-SAME: 15, 31, 31,

#mma = #sympow_tile.mma<warps = [2, 2]>
#mma1 = #sympow_tile.mma<warps = [2, 1]>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rows(%x: memref<?xf32>, %max: memref<?xf32>, %sum: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %t = sympow_tile.matrix_load %x[%c0] stride 32 : memref<?xf32> -> tensor<64x32xf32, #mma>
      %m = sympow_tile.row_reduce max %t : tensor<64x32xf32, #mma>
      %s = sympow_tile.row_reduce sum %t : tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %m, %max[%c0] stride 32 : tensor<64x32xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %s, %sum[%c0] stride 32 : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }
    gpu.func @one_column(%x: memref<?xf32>, %max: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %t = sympow_tile.matrix_load %x[%c0] stride 16 : memref<?xf32> -> tensor<32x16xf32, #mma1>
      %m = sympow_tile.row_reduce max %t : tensor<32x16xf32, #mma1>
      sympow_tile.matrix_store %m, %max[%c0] stride 16 : tensor<32x16xf32, #mma1>, memref<?xf32>
      gpu.return
    }
  }
}
