// Warpgroups regions whose loops disagree on the barriers: the producer
// (warpgroup 1) passes 3, the consumer (warpgroup 0) waits at a 4th that
// nobody else reaches. On a GPU the consumer hangs; the emulator reports
// the divergence with both groups of threads and returns.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | not sympow-emulate - --kernel mismatch --grid 1 --block 256 --arg f32:128 2>&1 | FileCheck %s
// CHECK: emulator: divergent barrier in kernel 'mismatch', block (0, 0, 0): 128 threads (first (0, 0, 0)) wait at gpu.barrier at {{.*}}; 128 threads (first (128, 0, 0)) exited without reaching it

#p = #sympow_tile.blocked<threads = 128, per_thread = 1>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @mismatch(%out: memref<?xf32>)
        workgroup(%staged: memref<128xf32, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      sympow_tile.warpgroups first 1 count 1 {
        scf.for %i = %c0 to %c3 step %c1 {
          gpu.barrier
        }
      }
      sympow_tile.warpgroups first 0 count 1 {
        scf.for %i = %c0 to %c4 step %c1 {
          gpu.barrier
        }
        %t = sympow_tile.range : tensor<128xindex, #p>
        %one = arith.constant dense<1.0> : tensor<128xf32, #p>
        sympow_tile.store %one, %out[%t] : tensor<128xf32, #p>, memref<?xf32>
      }
      gpu.return
    }
  }
}
