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
// @wgmma: the same for a warpgroup MMA with A from registers (64 x 16 f16
// of mma<warps = [4, 1]>, x = iota, exact in f16) and B staged in
// workgroup memory (B[k][n] = 32 k + n): the product from the fragments
// must equal that of A read straight into its layout, on the emulator with
// wgmma's semantics and with the sm_80 lowering (mma.sync per warp); PTX
// takes A in registers.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel wgmma --grid 1 --block 128 --arg f16:1024=iota --arg f16:512=iota --arg f32:2048 --arg f32:2048 --print | FileCheck %s --check-prefix=WGMMA
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-lower-warpgroup-mma=chip=sm_80 | sympow-emulate - --kernel wgmma --grid 1 --block 128 --arg f16:1024=iota --arg f16:512=iota --arg f32:2048 --arg f32:2048 --print | FileCheck %s --check-prefix=WGMMA
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @rows
// CHECK-NOT: sympow_tile.
// CHECK: gpu.return

// ROUNDTRIP: sympow_tile.fragments %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xbf16, #sympow_tile.blocked<threads = 64, per_thread = 2>>, {{.*}} -> tensor<32x16xbf16, #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 1]>>>

// Row 0: sum_k k (32 k + n) = 39680 + 120 n.
// WGMMA: emulator: ok
// WGMMA: arg2 = [39680, 39800, 39920,
// WGMMA: arg3 = [{{(0, )*0}}]

// PTX-LABEL: .entry wgmma
// PTX: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},

// EMU: emulator: ok
// EMU: arg2 = [9920, 10040, 10160, 10280, 10400, 10520, 10640, 10760,
// EMU: arg3 = [{{(0, )*0}}]

#mma = #sympow_tile.mma<warps = [2, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>
#wmma = #sympow_tile.mma<warps = [4, 1]>
#WA = #sympow_tile.dot_operand<operand = 0, parent = #wmma>
#w2 = #sympow_tile.blocked<threads = 128, per_thread = 2>
#w4 = #sympow_tile.blocked<threads = 128, per_thread = 4>

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
    gpu.func @wgmma(%x: memref<?xf16>, %y: memref<?xf16>, %out: memref<?xf32>, %diff: memref<?xf32>)
        workgroup(%sb: memref<512xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %i = sympow_tile.range : tensor<256xindex, #w2>
      %c2 = arith.constant dense<2> : tensor<256xindex, #w2>
      %c4 = arith.constant dense<4> : tensor<256xindex, #w2>
      %c8 = arith.constant dense<8> : tensor<256xindex, #w2>
      %c16 = arith.constant dense<16> : tensor<256xindex, #w2>
      %c32 = arith.constant dense<32> : tensor<256xindex, #w2>
      %t = arith.divui %i, %c2 : tensor<256xindex, #w2>
      %e = arith.remui %i, %c2 : tensor<256xindex, #w2>
      %w = arith.divui %t, %c32 : tensor<256xindex, #w2>
      %l = arith.remui %t, %c32 : tensor<256xindex, #w2>
      %w16 = arith.muli %w, %c16 : tensor<256xindex, #w2>
      %l4 = arith.divui %l, %c4 : tensor<256xindex, #w2>
      %row = arith.addi %w16, %l4 : tensor<256xindex, #w2>
      %lr = arith.remui %l, %c4 : tensor<256xindex, #w2>
      %l2 = arith.muli %lr, %c2 : tensor<256xindex, #w2>
      %col = arith.addi %l2, %e : tensor<256xindex, #w2>
      %r16 = arith.muli %row, %c16 : tensor<256xindex, #w2>
      %at0 = arith.addi %r16, %col : tensor<256xindex, #w2>
      %c128 = arith.constant dense<128> : tensor<256xindex, #w2>
      %c136 = arith.constant dense<136> : tensor<256xindex, #w2>
      %at1 = arith.addi %at0, %c128 : tensor<256xindex, #w2>
      %at2 = arith.addi %at0, %c8 : tensor<256xindex, #w2>
      %at3 = arith.addi %at0, %c136 : tensor<256xindex, #w2>
      %x0 = sympow_tile.load %x[%at0] : memref<?xf16> -> tensor<256xf16, #w2>
      %x1 = sympow_tile.load %x[%at1] : memref<?xf16> -> tensor<256xf16, #w2>
      %x2 = sympow_tile.load %x[%at2] : memref<?xf16> -> tensor<256xf16, #w2>
      %x3 = sympow_tile.load %x[%at3] : memref<?xf16> -> tensor<256xf16, #w2>
      %a = sympow_tile.fragments %x0, %x1, %x2, %x3 : tensor<256xf16, #w2>, tensor<256xf16, #w2>, tensor<256xf16, #w2>, tensor<256xf16, #w2> -> tensor<64x16xf16, #WA>
      %a2 = sympow_tile.matrix_load %x[%c0] stride 16 : memref<?xf16> -> tensor<64x16xf16, #WA>
      // B[k][n] (16 x 32, row-major) to (n / 8) 128 + 8 k + n % 8.
      %j = sympow_tile.range : tensor<512xindex, #w4>
      %k32 = arith.constant dense<32> : tensor<512xindex, #w4>
      %k8 = arith.constant dense<8> : tensor<512xindex, #w4>
      %k128 = arith.constant dense<128> : tensor<512xindex, #w4>
      %k = arith.divui %j, %k32 : tensor<512xindex, #w4>
      %n = arith.remui %j, %k32 : tensor<512xindex, #w4>
      %nb = arith.divui %n, %k8 : tensor<512xindex, #w4>
      %nr = arith.remui %n, %k8 : tensor<512xindex, #w4>
      %o1 = arith.muli %nb, %k128 : tensor<512xindex, #w4>
      %o2 = arith.muli %k, %k8 : tensor<512xindex, #w4>
      %o12 = arith.addi %o1, %o2 : tensor<512xindex, #w4>
      %o = arith.addi %o12, %nr : tensor<512xindex, #w4>
      %yv = sympow_tile.load %y[%j] : memref<?xf16> -> tensor<512xf16, #w4>
      sympow_tile.store %yv, %sb[%o] : tensor<512xf16, #w4>, memref<512xf16, #gpu.address_space<workgroup>>
      sympow_tile.async_proxy_fence
      gpu.barrier
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : memref<512xf16, #gpu.address_space<workgroup>>
      %acc = sympow_tile.splat %zero : tensor<64x32xf32, #wmma>
      sympow_tile.warpgroup_fence
      %d = sympow_tile.warpgroup_mma %a, %db, %acc {transposeB} : tensor<64x16xf16, #WA>, f16, tensor<64x32xf32, #wmma>
      %d2 = sympow_tile.warpgroup_mma %a2, %db, %acc {transposeB} : tensor<64x16xf16, #WA>, f16, tensor<64x32xf32, #wmma>
      sympow_tile.warpgroup_commit
      %r, %r2 = sympow_tile.warpgroup_wait 0, %d, %d2 : tensor<64x32xf32, #wmma>, tensor<64x32xf32, #wmma>
      %dd = arith.subf %r, %r2 : tensor<64x32xf32, #wmma>
      sympow_tile.matrix_store %r, %out[%c0] stride 32 : tensor<64x32xf32, #wmma>, memref<?xf32>
      sympow_tile.matrix_store %dd, %diff[%c0] stride 32 : tensor<64x32xf32, #wmma>, memref<?xf32>
      gpu.return
    }
  }
}
