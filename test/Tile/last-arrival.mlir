// sympow_tile.last_arrival: eight programs each store a partial value, then
// arrive; the last one sums the partials. Lowered: thread 0 fences and runs
// a compare-and-swap loop between two barriers, the verdict through
// workgroup memory, the last program's threads fence again. On the
// emulator the eight programs run on parallel workers.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=PTX
// A counter with another epoch's word counts as none: 1 + 2 + ... + 8.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel reduce --grid 8 --block 64 --arg f32:8 --arg i64:1=12345 --arg f32:1 --arg i64=7 --print --workers 4 | FileCheck %s --check-prefix=FRESH
// A word of this epoch with no arrivals (what a launch leaves) likewise.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel reduce --grid 8 --block 64 --arg f32:8 --arg i64:1=30064771072 --arg f32:1 --arg i64=7 --print --workers 4 | FileCheck %s --check-prefix=FRESH
// A word of this epoch with arrivals already counted: the sum is not
// written (no program arrives eighth), which is why a launch must leave
// none and why the epoch exists.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel reduce --grid 8 --block 64 --arg f32:8 --arg i64:1=30064771081 --arg f32:1 --arg i64=7 --print | FileCheck %s --check-prefix=STALE
// Fewer programs than the op counts: none is last.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel reduce --grid 7 --block 64 --arg f32:8 --arg i64:1 --arg f32:1 --arg i64=7 --print | FileCheck %s --check-prefix=SHORT

// CHECK-LABEL: gpu.func @reduce
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: gpu.barrier
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: llvm.fence syncscope("device") release
// CHECK: memref.generic_atomic_rmw %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK: memref.atomic_yield
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[FLAG:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: %[[LAST:.*]] = arith.cmpi ne, %[[FLAG]]
// CHECK: scf.if %[[LAST]] {
// CHECK: llvm.fence syncscope("device") acquire

// The release fence, the CAS loop, the barrier, the acquire fence.
// PTX: fence.acq_rel.gpu;
// PTX: atom.acq_rel.sys.global.cas.b64
// PTX: bar.sync
// PTX: fence.acq_rel.gpu;

// FRESH: emulator: ok
// FRESH: arg1 = [30064771072]
// FRESH: arg2 = [36]
// STALE: emulator: ok
// STALE: arg1 = [30064771089]
// STALE: arg2 = [0]
// SHORT: emulator: ok
// SHORT: arg1 = [30064771079]
// SHORT: arg2 = [0]

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @reduce(%partials: memref<?xf32>, %counters: memref<?xi64>, %out: memref<?xf32>, %epoch: i64) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [8, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %x = sympow_tile.program_id 0
      %i = sympow_tile.range : tensor<64xindex, #b1>
      %zero = sympow_tile.splat %c0 : tensor<64xindex, #b1>
      %eight = sympow_tile.splat %c8 : tensor<64xindex, #b1>
      %first = arith.cmpi eq, %i, %zero : tensor<64xindex, #b1>
      // partials[x] = x + 1, by thread 0.
      %x1 = arith.addi %x, %c1 : index
      %x1i = arith.index_cast %x1 : index to i64
      %x1f = arith.sitofp %x1i : i64 to f32
      %value = sympow_tile.splat %x1f : tensor<64xf32, #b1>
      %at = sympow_tile.splat %x : tensor<64xindex, #b1>
      sympow_tile.store %value, %partials[%at] mask %first : tensor<64xf32, #b1>, memref<?xf32>
      %last = sympow_tile.last_arrival %counters[%c0] epoch %epoch programs 8 : memref<?xi64>
      scf.if %last {
        %f0 = arith.constant 0.0 : f32
        %none = sympow_tile.splat %f0 : tensor<64xf32, #b1>
        %in = arith.cmpi ult, %i, %eight : tensor<64xindex, #b1>
        %p = sympow_tile.load %partials[%i] mask %in, %none : memref<?xf32> -> tensor<64xf32, #b1>
        %s = sympow_tile.column_sum %p {columns = 1} : tensor<64xf32, #b1>
        sympow_tile.store %s, %out[%zero] mask %first : tensor<64xf32, #b1>, memref<?xf32>
      }
      gpu.return
    }
  }
}
