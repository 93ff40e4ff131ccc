// sympow_tile.fragments: a dot's A operand from each thread's elements of
// blocked tiles. Thread T = 32 w + l of mma<warps = [2, 1]> holds A (32 x 16)
// as vector<1x1x4x2xbf16>: element 2 q + e at row 16 w + l / 4 + 8 (q % 2),
// column 2 (l % 4) + e + 8 (q / 2). @rows loads those elements of x (row
// stride 16) into four blocked tiles of two per thread (q = 0 .. 3) by its
// own address math, makes them A, and multiplies by B (16 x 8, B[k][n] =
// 8 k + n: a column moved within a row shows); the product must equal that
// of A read straight into its layout (matrix_load) exactly, and row 0 (x =
// iota, exact in bf16) is sum_k k (8 k + n) = 9920 + 120 n.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel rows --grid 1 --block 64 --arg bf16:512=iota --arg bf16:128=iota --arg f32:256 --arg f32:256 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK-LABEL: gpu.func @rows
// CHECK-NOT: sympow_tile.
// CHECK: gpu.return

// ROUNDTRIP: sympow_tile.fragments %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xbf16, #sympow_tile.blocked<threads = 64, per_thread = 2>>, {{.*}} -> tensor<32x16xbf16, #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 1]>>>

// EMU: emulator: ok
// EMU: arg2 = [9920, 10040, 10160, 10280, 10400, 10520, 10640, 10760,
// EMU: arg3 = [{{(0, )*0}}]

#mma = #sympow_tile.mma<warps = [2, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rows(%x: memref<?xbf16>, %y: memref<?xbf16>, %out: memref<?xf32>, %diff: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %i = sympow_tile.range : tensor<128xindex, #b2>
      %c2 = arith.constant dense<2> : tensor<128xindex, #b2>
      %c4 = arith.constant dense<4> : tensor<128xindex, #b2>
      %c8 = arith.constant dense<8> : tensor<128xindex, #b2>
      %c16 = arith.constant dense<16> : tensor<128xindex, #b2>
      %c32 = arith.constant dense<32> : tensor<128xindex, #b2>
      %t = arith.divui %i, %c2 : tensor<128xindex, #b2>
      %e = arith.remui %i, %c2 : tensor<128xindex, #b2>
      %w = arith.divui %t, %c32 : tensor<128xindex, #b2>
      %l = arith.remui %t, %c32 : tensor<128xindex, #b2>
      // Row 16 w + l / 4, column 2 (l % 4) + e: q = 0's element.
      %w16 = arith.muli %w, %c16 : tensor<128xindex, #b2>
      %l4 = arith.divui %l, %c4 : tensor<128xindex, #b2>
      %row = arith.addi %w16, %l4 : tensor<128xindex, #b2>
      %lr = arith.remui %l, %c4 : tensor<128xindex, #b2>
      %l2 = arith.muli %lr, %c2 : tensor<128xindex, #b2>
      %col = arith.addi %l2, %e : tensor<128xindex, #b2>
      %r16 = arith.muli %row, %c16 : tensor<128xindex, #b2>
      %at0 = arith.addi %r16, %col : tensor<128xindex, #b2>
      // q = 1: 8 rows on (128 elements); q = 2: 8 columns on; q = 3: both.
      %c128 = arith.constant dense<128> : tensor<128xindex, #b2>
      %c136 = arith.constant dense<136> : tensor<128xindex, #b2>
      %at1 = arith.addi %at0, %c128 : tensor<128xindex, #b2>
      %at2 = arith.addi %at0, %c8 : tensor<128xindex, #b2>
      %at3 = arith.addi %at0, %c136 : tensor<128xindex, #b2>
      %x0 = sympow_tile.load %x[%at0] : memref<?xbf16> -> tensor<128xbf16, #b2>
      %x1 = sympow_tile.load %x[%at1] : memref<?xbf16> -> tensor<128xbf16, #b2>
      %x2 = sympow_tile.load %x[%at2] : memref<?xbf16> -> tensor<128xbf16, #b2>
      %x3 = sympow_tile.load %x[%at3] : memref<?xbf16> -> tensor<128xbf16, #b2>
      %a = sympow_tile.fragments %x0, %x1, %x2, %x3 : tensor<128xbf16, #b2>, tensor<128xbf16, #b2>, tensor<128xbf16, #b2>, tensor<128xbf16, #b2> -> tensor<32x16xbf16, #A>
      %b = sympow_tile.matrix_load %y[%c0] stride 8 : memref<?xbf16> -> tensor<16x8xbf16, #B>
      %acc = sympow_tile.splat %zero : tensor<32x8xf32, #mma>
      %r = sympow_tile.dot %a, %b, %acc : tensor<32x16xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %a2 = sympow_tile.matrix_load %x[%c0] stride 16 : memref<?xbf16> -> tensor<32x16xbf16, #A>
      %r2 = sympow_tile.dot %a2, %b, %acc : tensor<32x16xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<32x8xf32, #mma>
      %d = arith.subf %r, %r2 : tensor<32x8xf32, #mma>
      sympow_tile.matrix_store %r, %out[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      sympow_tile.matrix_store %d, %diff[%c0] stride 8 : tensor<32x8xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
