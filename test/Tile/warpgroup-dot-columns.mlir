// Warpgroups side by side in a tile kernel: the accumulator in
// mma<warps = [4, 2], column_major = true> (warpgroup j: all 64 rows of
// columns 16 j .. 16 j + 15), A shared (its dot_operand), B the whole
// 16 x 32 operand as N-major core matrices. The tile lowering advances
// the second warpgroup's descriptor to its columns: (16 / 8) 256 bytes on,
// 32 in the start address's 16-byte units.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// out = c + a b with a = 1, b[k][n] = 32 k + n, c = 1: row m is
// 1 + 3840 + 16 n, as with one warpgroup (warpgroup-dot.mlir).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel wcols --grid 1 --block 256 --arg f16:1024=1 --arg f16:512=iota --arg f32:2048=1 --arg f32:2048 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-lower-warpgroup-mma=chip=sm_80 | sympow-emulate - --kernel wcols --grid 1 --block 256 --arg f16:1024=1 --arg f16:512=iota --arg f32:2048=1 --arg f32:2048 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @wcols
// The warp's column block (warp / 4), read from lane 0 so that ptxas sees
// it warp-uniform, times 32 sixteen-byte units:
// CHECK: %[[DB0:.*]] = sympow_tile.warpgroup_descriptor %{{.*}}[%{{.*}}] swizzle 0 leading 128 stride 256
// CHECK: %[[I32:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[LANE0:.*]], %{{.*}} = gpu.shuffle idx %[[I32]], %c0_i32
// CHECK: %[[BLOCK:.*]] = arith.index_cast %[[LANE0]] : i32 to index
// CHECK: %[[OFF:.*]] = arith.muli %[[BLOCK]], %c32
// CHECK: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK: %[[DB:.*]] = arith.addi %[[DB0]], %[[OFF64]] : i64
// CHECK: %[[D:.*]] = sympow_tile.warpgroup_mma %{{.*}}, %[[DB]], %{{.*}} {transposeB} : vector<1x1x4x2xf16>, f16, vector<1x2x2x2xf32>

// EMU: emulator: ok
// EMU: arg3 = [3841, 3857, 3873, 3889, 3905, 3921, 3937, 3953, 3969, 3985, 4001, 4017, 4033, 4049, 4065, 4081, 4097, 4113, 4129, 4145, 4161, 4177, 4193, 4209, 4225, 4241, 4257, 4273, 4289, 4305, 4321, 4337, 3841,

// PTX: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16

#b = #sympow_tile.blocked<threads = 256, per_thread = 2>
#mma = #sympow_tile.mma<warps = [4, 2], column_major = true>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @wcols(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf32>,
                   %out: memref<?xf32>)
        workgroup(%sb: memref<512xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %ta = sympow_tile.matrix_load %a[%c0] stride 16 : memref<?xf16> -> tensor<64x16xf16, #A>
      // B[k][n] (16 x 32, row-major) to (n / 8) * 128 + k * 8 + n % 8:
      // 8 k of 8 n per core matrix, k + 8 at 128 bytes, n + 8 at 256.
      %i = sympow_tile.range : tensor<512xindex, #b>
      %k32 = arith.constant dense<32> : tensor<512xindex, #b>
      %k8 = arith.constant dense<8> : tensor<512xindex, #b>
      %k128 = arith.constant dense<128> : tensor<512xindex, #b>
      %k = arith.divui %i, %k32 : tensor<512xindex, #b>
      %n = arith.remui %i, %k32 : tensor<512xindex, #b>
      %nb = arith.divui %n, %k8 : tensor<512xindex, #b>
      %nr = arith.remui %n, %k8 : tensor<512xindex, #b>
      %o1 = arith.muli %nb, %k128 : tensor<512xindex, #b>
      %o2 = arith.muli %k, %k8 : tensor<512xindex, #b>
      %o12 = arith.addi %o1, %o2 : tensor<512xindex, #b>
      %o = arith.addi %o12, %nr : tensor<512xindex, #b>
      %x = sympow_tile.load %b[%i] : memref<?xf16> -> tensor<512xf16, #b>
      sympow_tile.store %x, %sb[%o] : tensor<512xf16, #b>, memref<512xf16, #gpu.address_space<workgroup>>
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : memref<512xf16, #gpu.address_space<workgroup>>
      %acc = sympow_tile.matrix_load %c[%c0] stride 32 : memref<?xf32> -> tensor<64x32xf32, #mma>
      %d = sympow_tile.warpgroup_mma %ta, %db, %acc {transposeB} : tensor<64x16xf16, #A>, f16, tensor<64x32xf32, #mma>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %d : tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %r, %out[%c0] stride 32 : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
