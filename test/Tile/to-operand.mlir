// sympow_tile.to_operand: an accumulator-layout tile reused as a dot's A
// operand in registers. P (32 x 32 bf16, iota rounded to bf16) times B
// (32 x 8, B[k][n] = 8 k + n: each k weighs differently, so a column moved
// within a row shows) both ways: P through to_operand, and P read straight
// into the A layout; the two products must agree exactly, and row 0 (exact
// in bf16) is sum_k k (8 k + n) = 83328 + 496 n. P's two 16-column slices
// (first_column 0 and 16) times B's two halves give the same product.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel rows --grid 1 --block 64 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:256 --arg f32:256 --arg f32:256 --print | FileCheck %s --check-prefix=EMU

// CHECK-LABEL: gpu.func @rows
// CHECK-NOT: sympow_tile.
// CHECK: gpu.return

// EMU: emulator: ok
// EMU: arg2 = [83328, 83824, 84320, 84816,
// EMU: arg3 = [{{(0, )*0}}]
// EMU: arg4 = [{{(0, )*0}}]

#mma = #sympow_tile.mma<warps = [2, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rows(%x: memref<?xbf16>, %y: memref<?xbf16>, %out: memref<?xf32>, %diff: memref<?xf32>, %slices: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %b = sympow_tile.matrix_load %y[%c0] stride 8 : memref<?xbf16> -> tensor<32x8xbf16, #B>
      %acc = sympow_tile.splat %zero : tensor<32x8xf32, #mma>
      %p = sympow_tile.matrix_load %x[%c0] stride 32 : memref<?xbf16> -> tensor<32x32xbf16, #mma>
      %a = sympow_tile.to_operand %p : tensor<32x32xbf16, #mma> -> tensor<32x32xbf16, #A>
      %r = sympow_tile.dot %a, %b, %acc : tensor<32x32xbf16, #A>, tensor<32x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %a2 = sympow_tile.matrix_load %x[%c0] stride 32 : memref<?xbf16> -> tensor<32x32xbf16, #A>
      %r2 = sympow_tile.dot %a2, %b, %acc : tensor<32x32xbf16, #A>, tensor<32x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %d = arith.subf %r, %r2 : tensor<32x8xf32, #mma>
      %c128 = arith.constant 128 : index
      %b0 = sympow_tile.matrix_load %y[%c0] stride 8 : memref<?xbf16> -> tensor<16x8xbf16, #B>
      %b1 = sympow_tile.matrix_load %y[%c128] stride 8 : memref<?xbf16> -> tensor<16x8xbf16, #B>
      %k0 = sympow_tile.to_operand %p : tensor<32x32xbf16, #mma> -> tensor<32x16xbf16, #A>
      %k1 = sympow_tile.to_operand %p {first_column = 16 : i64} : tensor<32x32xbf16, #mma> -> tensor<32x16xbf16, #A>
      %s0 = sympow_tile.dot %k0, %b0, %acc : tensor<32x16xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %s1 = sympow_tile.dot %k1, %b1, %s0 : tensor<32x16xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %d2 = arith.subf %r, %s1 : tensor<32x8xf32, #mma>
      sympow_tile.matrix_store %r, %out[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %d, %diff[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %d2, %slices[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
