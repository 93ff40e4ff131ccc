// --sympow-convert-tile-to-gpu: tiles become each thread's elements, the
// kernel attribute the launch metadata.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s

#b1 = #sympow_tile.blocked<threads = 256, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    // One element per thread: scalars. The fixed grid x is blocks_x.
    // CHECK-LABEL: gpu.func @scan(
    // CHECK-SAME: %[[X:.*]]: memref<?xf32>, %[[D:.*]]: memref<?xf32>, %[[N:.*]]: index)
    // CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32, sympow.launch = {block = array<i32: 256, 1, 1>, blocks_x = 40 : i64, dynamic_shared_bytes = 0 : i64, grid_y = 8 : i64, tokens_per_block = 0 : i64}}
    // CHECK-NOT: sympow_tile
    // CHECK: %[[PID:.*]] = gpu.block_id x
    // CHECK: %[[START:.*]] = arith.muli %[[PID]], %{{.*}} : index
    // CHECK: %[[TID:.*]] = gpu.thread_id x
    // CHECK: %[[I:.*]] = arith.addi %[[START]], %[[TID]] : index
    // CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[N]] : index
    // CHECK: %[[A:.*]] = scf.if %[[IN]] -> (f32) {
    // CHECK:   %[[L:.*]] = memref.load %[[X]][%[[I]]] : memref<?xf32>
    // CHECK:   scf.yield %[[L]] : f32
    // CHECK: } else {
    // CHECK:   scf.yield %{{.*}} : f32
    // CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[A]]) -> (f32) {
    // CHECK:   %[[G:.*]] = memref.load %[[D]][
    // CHECK:   %[[K:.*]] = math.exp %[[G]] : f32
    // CHECK:   %[[F:.*]] = math.fma %[[K]], %[[ACC]], %{{.*}} : f32
    // CHECK:   scf.yield %[[F]] : f32
    // CHECK: scf.if %[[IN]] {
    // CHECK:   memref.store %[[R]], %[[X]][%[[I]]] : memref<?xf32>
    // CHECK: gpu.return
    gpu.func @scan(%x: memref<?xf32>, %decay: memref<?xf32>, %n: index) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [40, 8, B]>} {
      %pid = sympow_tile.program_id 0
      %c256 = arith.constant 256 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %start = arith.muli %pid, %c256 : index
      %s = sympow_tile.splat %start : tensor<256xindex, #b1>
      %r = sympow_tile.range : tensor<256xindex, #b1>
      %i = arith.addi %s, %r : tensor<256xindex, #b1>
      %bound = sympow_tile.splat %n : tensor<256xindex, #b1>
      %in = arith.cmpi ult, %i, %bound : tensor<256xindex, #b1>
      %zero = arith.constant dense<0.0> : tensor<256xf32, #b1>
      %one = arith.constant dense<1.0> : tensor<256xf32, #b1>
      %a = sympow_tile.load %x[%i] mask %in, %zero : memref<?xf32> -> tensor<256xf32, #b1>
      %out = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<256xf32, #b1>) {
        %g = memref.load %decay[%k] : memref<?xf32>
        %e = math.exp %g : f32
        %keep = sympow_tile.splat %e : tensor<256xf32, #b1>
        %next = math.fma %keep, %acc, %one : tensor<256xf32, #b1>
        scf.yield %next : tensor<256xf32, #b1>
      }
      sympow_tile.store %out, %x[%i] mask %in : tensor<256xf32, #b1>, memref<?xf32>
      gpu.return
    }

    // Two elements per thread: vector<2x...>, elements 2t and 2t + 1; the
    // grid per 128 tokens is tokens_per_block.
    // CHECK-LABEL: gpu.func @pairs(
    // CHECK-SAME: sympow.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_bytes = 0 : i64, grid_y = 2 : i64, tokens_per_block = 128 : i64}
    // CHECK: %[[T:.*]] = gpu.thread_id x
    // CHECK: %[[T2:.*]] = arith.muli %[[T]], %{{.*}} : index
    // CHECK: %[[T21:.*]] = arith.addi %[[T2]], %{{.*}} : index
    // CHECK: %[[IV:.*]] = vector.from_elements %[[T2]], %[[T21]] : vector<2xindex>
    // CHECK: %[[I0:.*]] = vector.extract %[[IV]][0] : index from vector<2xindex>
    // CHECK: %[[I1:.*]] = vector.extract %[[IV]][1] : index from vector<2xindex>
    // CHECK: %[[V0:.*]] = memref.load %{{.*}}[%[[I0]]] : memref<?xf16>
    // CHECK: %[[V1:.*]] = memref.load %{{.*}}[%[[I1]]] : memref<?xf16>
    // CHECK: %[[V:.*]] = vector.from_elements %[[V0]], %[[V1]] : vector<2xf16>
    // CHECK: %[[W:.*]] = arith.extf %[[V]] : vector<2xf16> to vector<2xf32>
    // CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : vector<2xf32>
    // CHECK: %[[P:.*]] = arith.mulf %[[W]], %[[C]] : vector<2xf32>
    // CHECK: %[[P0:.*]] = vector.extract %[[P]][0] : f32 from vector<2xf32>
    // CHECK: %[[P1:.*]] = vector.extract %[[P]][1] : f32 from vector<2xf32>
    // CHECK: memref.store %[[P0]], %{{.*}}[%{{.*}}] : memref<?xf32>
    // CHECK: memref.store %[[P1]], %{{.*}}[%{{.*}}] : memref<?xf32>
    gpu.func @pairs(%in: memref<?xf16>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [cdiv(T, 128), 2, B]>} {
      %i = sympow_tile.range : tensor<128xindex, #b2>
      %v = sympow_tile.load %in[%i] : memref<?xf16> -> tensor<128xf16, #b2>
      %w = arith.extf %v : tensor<128xf16, #b2> to tensor<128xf32, #b2>
      %two = arith.constant dense<2.0> : tensor<128xf32, #b2>
      %p = arith.mulf %w, %two : tensor<128xf32, #b2>
      sympow_tile.store %p, %out[%i] : tensor<128xf32, #b2>, memref<?xf32>
      gpu.return
    }
    // A run chosen by one condition per thread (the condition expanded over
    // the run): one select of the whole vector by the scalar, not one per
    // element.
    // CHECK-LABEL: gpu.func @run_select(
    // CHECK: %[[KEEP:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
    // CHECK-NOT: vector.broadcast %[[KEEP]]
    // CHECK: arith.select %[[KEEP]], %{{.*}}, %{{.*}} : vector<2xbf16>
    gpu.func @run_select(%in: memref<?xbf16>, %out: memref<?xbf16>, %n: index) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %bound = sympow_tile.splat %n : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %keep = arith.cmpi ult, %t, %bound : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %run = sympow_tile.expand %keep : tensor<64xi1, #sympow_tile.blocked<threads = 64, per_thread = 1>> -> tensor<128xi1, #b2>
      %i = sympow_tile.range : tensor<128xindex, #b2>
      %v = sympow_tile.load %in[%i] contiguous : memref<?xbf16> -> tensor<128xbf16, #b2>
      %zero = arith.constant dense<0.0> : tensor<128xbf16, #b2>
      %x = arith.select %run, %v, %zero : tensor<128xi1, #b2>, tensor<128xbf16, #b2>
      sympow_tile.store %x, %out[%i] contiguous : tensor<128xbf16, #b2>, memref<?xbf16>
      gpu.return
    }
    // bf16 runs to f32 by their bits (a pair of bf16 is one word, each
    // f32 its bf16 in the upper half), then two runs interleaved slot by
    // slot.
    // CHECK-LABEL: gpu.func @pairs_of_runs(
    // CHECK: %[[A:.*]] = vector.load %{{.*}} : memref<?xbf16>, vector<2xbf16>
    // CHECK: %[[W:.*]] = vector.bitcast %[[A]] : vector<2xbf16> to vector<1xi32>
    // CHECK: %[[LO:.*]] = arith.shli %[[W]], %{{.*}} : vector<1xi32>
    // CHECK: %[[EVEN:.*]] = arith.bitcast %[[LO]] : vector<1xi32> to vector<1xf32>
    // CHECK: %[[HI:.*]] = arith.andi %[[W]], %{{.*}} : vector<1xi32>
    // CHECK: %[[ODD:.*]] = arith.bitcast %[[HI]] : vector<1xi32> to vector<1xf32>
    // CHECK: %[[X:.*]] = vector.shuffle %[[EVEN]], %[[ODD]] [0, 1] : vector<1xf32>, vector<1xf32>
    // CHECK: %[[Y:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1] : vector<1xf32>, vector<1xf32>
    // CHECK: vector.shuffle %[[X]], %[[Y]] [0, 2, 1, 3] : vector<2xf32>, vector<2xf32>
    gpu.func @pairs_of_runs(%in: memref<?xbf16>, %in2: memref<?xbf16>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<128xindex, #b2>
      %a = sympow_tile.load %in[%i] contiguous : memref<?xbf16> -> tensor<128xbf16, #b2>
      %b = sympow_tile.load %in2[%i] contiguous : memref<?xbf16> -> tensor<128xbf16, #b2>
      %fa = arith.extf %a : tensor<128xbf16, #b2> to tensor<128xf32, #b2>
      %fb = arith.extf %b : tensor<128xbf16, #b2> to tensor<128xf32, #b2>
      %pairs = sympow_tile.interleave %fa, %fb : tensor<128xf32, #b2> -> tensor<256xf32, #sympow_tile.blocked<threads = 64, per_thread = 4>>
      %j = sympow_tile.range : tensor<256xindex, #sympow_tile.blocked<threads = 64, per_thread = 4>>
      sympow_tile.store %pairs, %out[%j] contiguous : tensor<256xf32, #sympow_tile.blocked<threads = 64, per_thread = 4>>, memref<?xf32>
      gpu.return
    }
    // A run's slots (sympow_tile.slots): part of the thread's vector, one
    // element of it, or all of it (no op).
    // CHECK-LABEL: gpu.func @slots_of_runs(
    // CHECK: %[[W:.*]] = vector.load %{{.*}} : memref<?xbf16>, vector<4xbf16>
    // CHECK: %[[HI:.*]] = vector.shuffle %[[W]], %[[W]] [0, 1] : vector<4xbf16>, vector<4xbf16>
    // CHECK: %[[LO:.*]] = vector.shuffle %[[W]], %[[W]] [2, 3] : vector<4xbf16>, vector<4xbf16>
    // CHECK: %[[ONE:.*]] = vector.extract %[[W]][3] : bf16 from vector<4xbf16>
    // CHECK: arith.addf %[[HI]], %[[LO]] : vector<2xbf16>
    // CHECK: vector.store %[[W]],
    gpu.func @slots_of_runs(%in: memref<?xbf16>, %out: memref<?xbf16>, %one: memref<?xbf16>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<256xindex, #sympow_tile.blocked<threads = 64, per_thread = 4>>
      %w = sympow_tile.load %in[%i] contiguous : memref<?xbf16> -> tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>>
      %hi = sympow_tile.slots %w {offset = 0} : tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>> -> tensor<128xbf16, #b2>
      %lo = sympow_tile.slots %w {offset = 2} : tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>> -> tensor<128xbf16, #b2>
      %last = sympow_tile.slots %w {offset = 3} : tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>> -> tensor<64xbf16, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %all = sympow_tile.slots %w {offset = 0} : tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>> -> tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>>
      %sum = arith.addf %hi, %lo : tensor<128xbf16, #b2>
      %j = sympow_tile.range : tensor<128xindex, #b2>
      sympow_tile.store %sum, %out[%j] contiguous : tensor<128xbf16, #b2>, memref<?xbf16>
      %t = sympow_tile.range : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      sympow_tile.store %last, %one[%t] : tensor<64xbf16, #sympow_tile.blocked<threads = 64, per_thread = 1>>, memref<?xbf16>
      sympow_tile.store %all, %in[%i] contiguous : tensor<256xbf16, #sympow_tile.blocked<threads = 64, per_thread = 4>>, memref<?xbf16>
      gpu.return
    }
    // Offsets that are a run (sympow_tile.run): the vector accesses take
    // the run's start itself (slot i's offset start + i would be formed
    // only in the element-wise fallback of a run a mask splits), and a
    // mask that is one condition per thread (expanded) guards the whole
    // run: no fallback, no vector of offsets.
    // CHECK-LABEL: gpu.func @runs(
    // CHECK: %[[START:.*]] = arith.muli %{{.*}}, %{{.*}} : index
    // CHECK-NOT: vector.broadcast %[[START]]
    // CHECK: vector.load %{{.*}}[%[[START]]] {alignment = 4 : i64} : memref<?xbf16>, vector<2xbf16>
    // CHECK: %[[IN:.*]] = arith.cmpi ult, %[[START]], %{{.*}} : index
    // CHECK: scf.if %[[IN]] {
    // CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%[[START]]]
    // CHECK-NEXT: {{^ *}}}
    // CHECK-NEXT: gpu.return
    gpu.func @runs(%in: memref<?xbf16>, %out: memref<?xbf16>, %n: index) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %c2 = arith.constant 2 : index
      %two = sympow_tile.splat %c2 : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %start = arith.muli %t, %two : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %at = sympow_tile.run %start : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>> -> tensor<128xindex, #b2>
      %v = sympow_tile.load %in[%at] contiguous : memref<?xbf16> -> tensor<128xbf16, #b2>
      %bound = sympow_tile.splat %n : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %starts = arith.cmpi ult, %start, %bound : tensor<64xindex, #sympow_tile.blocked<threads = 64, per_thread = 1>>
      %inside = sympow_tile.expand %starts : tensor<64xi1, #sympow_tile.blocked<threads = 64, per_thread = 1>> -> tensor<128xi1, #b2>
      sympow_tile.store %v, %out[%at] mask %inside contiguous : tensor<128xbf16, #b2>, memref<?xbf16>
      gpu.return
    }
  }
}
