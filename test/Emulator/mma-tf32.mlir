// mma.sync m16n8k8 with tf32 operands, the fragments built straight from
// global memory by the PTX ISA layout (group g = lane / 4, t = lane % 4):
// a = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; b = B[t][g], B[t+4][g].
// With A = iota (16x8) and B = iota (8x8), D[m][n] = sum_k (8 m + k)(8 k + n):
// row 0 is 1120 + 28 n, row 1 is 2912 + 92 n (all exact in tf32 and f32).
// RUN: sympow-emulate %s --kernel tf32 --block 32 --arg f32:128=iota --arg f32:64=iota --arg f32:128 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg2 = [1120, 1148, 1176, 1204, 1232, 1260, 1288, 1316, 2912, 3004, 3096, 3188, 3280, 3372, 3464, 3556,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tf32(%a: memref<?xf32>, %b: memref<?xf32>, %d: memref<?xf32>) kernel {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %lane = gpu.thread_id x
      %g = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      // A is 16x8 row-major: A[r][c] at 8 r + c.
      %g8 = arith.muli %g, %c8 : index
      %i0 = arith.addi %g8, %t : index
      %i1 = arith.addi %i0, %c64 : index
      %i2 = arith.addi %i0, %c4 : index
      %i3 = arith.addi %i1, %c4 : index
      %a0 = memref.load %a[%i0] : memref<?xf32>
      %a1 = memref.load %a[%i1] : memref<?xf32>
      %a2 = memref.load %a[%i2] : memref<?xf32>
      %a3 = memref.load %a[%i3] : memref<?xf32>
      // B is 8x8 row-major: B[k][n] at 8 k + n.
      %t8 = arith.muli %t, %c8 : index
      %j0 = arith.addi %t8, %g : index
      %c32 = arith.constant 32 : index
      %jb1 = arith.addi %j0, %c32 : index
      %b0 = memref.load %b[%j0] : memref<?xf32>
      %b1 = memref.load %b[%jb1] : memref<?xf32>
      %fa1 = vector.from_elements %a0, %a1, %a2, %a3 : vector<4xf32>
      %fa = vector.shape_cast %fa1 : vector<4xf32> to vector<4x1xf32>
      %fb1 = vector.from_elements %b0, %b1 : vector<2xf32>
      %fb = vector.shape_cast %fb1 : vector<2xf32> to vector<2x1xf32>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %fd = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 8], tf32Enabled}
          : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
      // d[i][j] is D[g + 8 i][2 t + j]; D is 16x8 row-major.
      %t2 = arith.muli %t, %c2 : index
      %base = arith.addi %g8, %t2 : index
      %d00 = vector.extract %fd[0, 0] : f32 from vector<2x2xf32>
      %d01 = vector.extract %fd[0, 1] : f32 from vector<2x2xf32>
      %d10 = vector.extract %fd[1, 0] : f32 from vector<2x2xf32>
      %d11 = vector.extract %fd[1, 1] : f32 from vector<2x2xf32>
      %k01 = arith.addi %base, %c1 : index
      %k10 = arith.addi %base, %c64 : index
      %k11 = arith.addi %k10, %c1 : index
      memref.store %d00, %d[%base] : memref<?xf32>
      memref.store %d01, %d[%k01] : memref<?xf32>
      memref.store %d10, %d[%k10] : memref<?xf32>
      memref.store %d11, %d[%k11] : memref<?xf32>
      gpu.return
    }
  }
}
