// The sympow_tile dialect prints what it parses (and again after a round
// trip through the generic form).
// RUN: sympow-opt %s | sympow-opt | FileCheck %s
// RUN: sympow-opt %s --mlir-print-op-generic | sympow-opt | FileCheck %s

#b = #sympow_tile.blocked<threads = 128, per_thread = 2>

// CHECK-LABEL: gpu.func @axpy
// CHECK-SAME: kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [cdiv(T, 256), 4, B]>}
// CHECK: %[[X:.*]] = sympow_tile.program_id 0
// CHECK: sympow_tile.program_id 2
// CHECK: %[[I:.*]] = sympow_tile.range : tensor<256xindex, #sympow_tile.blocked<threads = 128, per_thread = 2>>
// CHECK: sympow_tile.splat %{{.*}} : tensor<256xindex, #sympow_tile.blocked<threads = 128, per_thread = 2>>
// CHECK: sympow_tile.load %{{.*}}[%{{.*}}] mask %{{.*}}, %{{.*}} : memref<?xf32> -> tensor<256xf32, #sympow_tile.blocked<threads = 128, per_thread = 2>>
// CHECK: sympow_tile.load %{{.*}}[%{{.*}}] : memref<?xf32> -> tensor<256xf32,
// CHECK: scf.for {{.*}} -> (tensor<256xf32, #sympow_tile.blocked<threads = 128, per_thread = 2>>)
// CHECK: sympow_tile.store %{{.*}}, %{{.*}}[%{{.*}}] mask %{{.*}} : tensor<256xf32, #sympow_tile.blocked<threads = 128, per_thread = 2>>, memref<?xf32>
// CHECK: sympow_tile.store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<256xf32,
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [cdiv(T, 256), 4, B]>} {
      %pid = sympow_tile.program_id 0
      %z = sympow_tile.program_id 2
      %c256 = arith.constant 256 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %start = arith.muli %pid, %c256 : index
      %range = sympow_tile.range : tensor<256xindex, #b>
      %s = sympow_tile.splat %start : tensor<256xindex, #b>
      %i = arith.addi %s, %range : tensor<256xindex, #b>
      %bound = sympow_tile.splat %n : tensor<256xindex, #b>
      %inside = arith.cmpi ult, %i, %bound : tensor<256xindex, #b>
      %zero = arith.constant dense<0.0> : tensor<256xf32, #b>
      %a = sympow_tile.load %x[%i] mask %inside, %zero : memref<?xf32> -> tensor<256xf32, #b>
      %all = sympow_tile.load %y[%range] : memref<?xf32> -> tensor<256xf32, #b>
      %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<256xf32, #b>) {
        %e = math.exp %acc : tensor<256xf32, #b>
        %f = math.fma %e, %acc, %all : tensor<256xf32, #b>
        scf.yield %f : tensor<256xf32, #b>
      }
      sympow_tile.store %r, %y[%i] mask %inside : tensor<256xf32, #b>, memref<?xf32>
      sympow_tile.store %r, %y[%range] : tensor<256xf32, #b>, memref<?xf32>
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.func @fixed
// CHECK-SAME: #sympow_tile.kernel<threads = 32, grid = [529, 8, B]>
module attributes {gpu.container_module} {
  gpu.module @m2 {
    gpu.func @fixed() kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 32, grid = [529, 8, B]>} {
      gpu.return
    }
  }
}
