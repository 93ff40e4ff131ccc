// Tensor-core fragments: ldmatrix + mma.sync m16n8k16 (f16 and bf16
// inputs, f32 accumulators) against a CPU matmul (EmulatorTest.cpp checks
// every element; here one value: with A = iota and B = 1, row 0 of D is
// 0 + 1 + ... + 15 = 120).
// RUN: sympow-emulate %s --kernel mma_f16 --grid 1 --block 32 --arg f16:256=iota --arg f16:128=1 --arg f32:128 --print | FileCheck %s
// RUN: sympow-emulate %s --kernel mma_bf16 --grid 1 --block 32 --arg bf16:256=iota --arg bf16:128=1 --arg f32:128 --print | FileCheck %s
// Without instrumentation the collectives' own reads are not tracked either.
// RUN: sympow-emulate %s --kernel mma_f16 --grid 1 --block 32 --arg f16:256=iota --arg f16:128=1 --arg f32:128 --print --no-checks | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg2 = [120, 120, 120, 120, 120, 120, 120, 120, 376,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // D = A * B on one warp: A 16x16 and B 16x8 (f16, row-major in global
    // memory) staged in workgroup memory, loaded with ldmatrix (A x4, B x2
    // transposed) and multiplied with mma.sync m16n8k16 into f32.
    gpu.func @mma_f16(%a: memref<?xf16>, %b: memref<?xf16>, %d: memref<?xf32>)
        workgroup(%sa: memref<16x16xf16, #gpu.address_space<workgroup>>,
                  %sb: memref<16x8xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %lane = gpu.thread_id x
      scf.for %e = %c0 to %c8 step %c1 {
        %base = arith.muli %lane, %c8 : index
        %i = arith.addi %base, %e : index
        %row = arith.divui %i, %c16 : index
        %col = arith.remui %i, %c16 : index
        %x = memref.load %a[%i] : memref<?xf16>
        memref.store %x, %sa[%row, %col] : memref<16x16xf16, #gpu.address_space<workgroup>>
      }
      scf.for %e = %c0 to %c4 step %c1 {
        %base = arith.muli %lane, %c4 : index
        %i = arith.addi %base, %e : index
        %row = arith.divui %i, %c8 : index
        %col = arith.remui %i, %c8 : index
        %x = memref.load %b[%i] : memref<?xf16>
        memref.store %x, %sb[%row, %col] : memref<16x8xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %arow = arith.remui %lane, %c16 : index
      %half = arith.divui %lane, %c16 : index
      %acol = arith.muli %half, %c8 : index
      %fa = nvgpu.ldmatrix %sa[%arow, %acol] {numTiles = 4 : i32, transpose = false}
          : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      %fb = nvgpu.ldmatrix %sb[%arow, %c0] {numTiles = 2 : i32, transpose = true}
          : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %fd = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 16]}
          : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      // Fragment d[i][j] is D[lane / 4 + 8 i][2 (lane % 4) + j].
      %g = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      %t2 = arith.muli %t, %c2 : index
      %v00 = vector.extract %fd[0, 0] : f32 from vector<2x2xf32>
      %row00 = arith.addi %g, %c0 : index
      %col00 = arith.addi %t2, %c0 : index
      %rowBase00 = arith.muli %row00, %c8 : index
      %k00 = arith.addi %rowBase00, %col00 : index
      memref.store %v00, %d[%k00] : memref<?xf32>
      %v01 = vector.extract %fd[0, 1] : f32 from vector<2x2xf32>
      %row01 = arith.addi %g, %c0 : index
      %col01 = arith.addi %t2, %c1 : index
      %rowBase01 = arith.muli %row01, %c8 : index
      %k01 = arith.addi %rowBase01, %col01 : index
      memref.store %v01, %d[%k01] : memref<?xf32>
      %v10 = vector.extract %fd[1, 0] : f32 from vector<2x2xf32>
      %row10 = arith.addi %g, %c8 : index
      %col10 = arith.addi %t2, %c0 : index
      %rowBase10 = arith.muli %row10, %c8 : index
      %k10 = arith.addi %rowBase10, %col10 : index
      memref.store %v10, %d[%k10] : memref<?xf32>
      %v11 = vector.extract %fd[1, 1] : f32 from vector<2x2xf32>
      %row11 = arith.addi %g, %c8 : index
      %col11 = arith.addi %t2, %c1 : index
      %rowBase11 = arith.muli %row11, %c8 : index
      %k11 = arith.addi %rowBase11, %col11 : index
      memref.store %v11, %d[%k11] : memref<?xf32>
      gpu.return
    }

    // D = A * B on one warp: A 16x16 and B 16x8 (bf16, row-major in global
    // memory) staged in workgroup memory, loaded with ldmatrix (A x4, B x2
    // transposed) and multiplied with mma.sync m16n8k16 into f32.
    gpu.func @mma_bf16(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: memref<16x16xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<16x8xbf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %lane = gpu.thread_id x
      scf.for %e = %c0 to %c8 step %c1 {
        %base = arith.muli %lane, %c8 : index
        %i = arith.addi %base, %e : index
        %row = arith.divui %i, %c16 : index
        %col = arith.remui %i, %c16 : index
        %x = memref.load %a[%i] : memref<?xbf16>
        memref.store %x, %sa[%row, %col] : memref<16x16xbf16, #gpu.address_space<workgroup>>
      }
      scf.for %e = %c0 to %c4 step %c1 {
        %base = arith.muli %lane, %c4 : index
        %i = arith.addi %base, %e : index
        %row = arith.divui %i, %c8 : index
        %col = arith.remui %i, %c8 : index
        %x = memref.load %b[%i] : memref<?xbf16>
        memref.store %x, %sb[%row, %col] : memref<16x8xbf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %arow = arith.remui %lane, %c16 : index
      %half = arith.divui %lane, %c16 : index
      %acol = arith.muli %half, %c8 : index
      %fa = nvgpu.ldmatrix %sa[%arow, %acol] {numTiles = 4 : i32, transpose = false}
          : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
      %fb = nvgpu.ldmatrix %sb[%arow, %c0] {numTiles = 2 : i32, transpose = true}
          : memref<16x8xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %fd = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 16]}
          : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
      // Fragment d[i][j] is D[lane / 4 + 8 i][2 (lane % 4) + j].
      %g = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      %t2 = arith.muli %t, %c2 : index
      %v00 = vector.extract %fd[0, 0] : f32 from vector<2x2xf32>
      %row00 = arith.addi %g, %c0 : index
      %col00 = arith.addi %t2, %c0 : index
      %rowBase00 = arith.muli %row00, %c8 : index
      %k00 = arith.addi %rowBase00, %col00 : index
      memref.store %v00, %d[%k00] : memref<?xf32>
      %v01 = vector.extract %fd[0, 1] : f32 from vector<2x2xf32>
      %row01 = arith.addi %g, %c0 : index
      %col01 = arith.addi %t2, %c1 : index
      %rowBase01 = arith.muli %row01, %c8 : index
      %k01 = arith.addi %rowBase01, %col01 : index
      memref.store %v01, %d[%k01] : memref<?xf32>
      %v10 = vector.extract %fd[1, 0] : f32 from vector<2x2xf32>
      %row10 = arith.addi %g, %c8 : index
      %col10 = arith.addi %t2, %c0 : index
      %rowBase10 = arith.muli %row10, %c8 : index
      %k10 = arith.addi %rowBase10, %col10 : index
      memref.store %v10, %d[%k10] : memref<?xf32>
      %v11 = vector.extract %fd[1, 1] : f32 from vector<2x2xf32>
      %row11 = arith.addi %g, %c8 : index
      %col11 = arith.addi %t2, %c1 : index
      %rowBase11 = arith.muli %row11, %c8 : index
      %k11 = arith.addi %rowBase11, %col11 : index
      memref.store %v11, %d[%k11] : memref<?xf32>
      gpu.return
    }
  }
}
