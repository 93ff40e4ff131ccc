// gpu.shuffle in every mode on one warp: lane L holds 10 * L. Row k of
// `out` (32 lanes) is the k-th shuffle's value, of `valid` its predicate:
// xor 1, down 3, up 2, idx 5 (width 32), then down 3 with width 16.
// RUN: sympow-emulate %s --kernel shuffle --grid 1 --block 32 --arg f32:160 --arg i32:160 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg0 = [10, 0, 30, 20, 50, 40,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shuffle(%out: memref<?xf32>, %valid: memref<?xi32>) kernel {
      %c32 = arith.constant 32 : index
      %ten = arith.constant 10.0 : f32
      %w32 = arith.constant 32 : i32
      %w16 = arith.constant 16 : i32
      %o1 = arith.constant 1 : i32
      %o2 = arith.constant 2 : i32
      %o3 = arith.constant 3 : i32
      %o5 = arith.constant 5 : i32
      %lane = gpu.thread_id x
      %li = arith.index_cast %lane : index to i32
      %lf = arith.sitofp %li : i32 to f32
      %v = arith.mulf %lf, %ten : f32
      %r0, %p0 = gpu.shuffle xor %v, %o1, %w32 : f32
      %r1, %p1 = gpu.shuffle down %v, %o3, %w32 : f32
      %r2, %p2 = gpu.shuffle up %v, %o2, %w32 : f32
      %r3, %p3 = gpu.shuffle idx %v, %o5, %w32 : f32
      %r4, %p4 = gpu.shuffle down %v, %o3, %w16 : f32
      %results = vector.from_elements %r0, %r1, %r2, %r3, %r4 : vector<5xf32>
      %preds = vector.from_elements %p0, %p1, %p2, %p3, %p4 : vector<5xi1>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      scf.for %k = %c0 to %c5 step %c1 {
        %row = arith.muli %k, %c32 : index
        %i = arith.addi %row, %lane : index
        %r = vector.extract %results[%k] : f32 from vector<5xf32>
        %p = vector.extract %preds[%k] : i1 from vector<5xi1>
        %pi = arith.extui %p : i1 to i32
        memref.store %r, %out[%i] : memref<?xf32>
        memref.store %pi, %valid[%i] : memref<?xi32>
      }
      gpu.return
    }
  }
}
