// gpu.subgroup_reduce and gpu.all_reduce, lowered by upstream's patterns to
// shuffles, workgroup memory and barriers, on a block of 64 threads:
// out[t] = sum of the lanes of t's warp, out[64 + t] = max over the block.
// RUN: sympow-emulate %s --kernel reduce --grid 1 --block 64 --arg f32:128 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg0 = [496, 496, {{.*}}, 496, 1520, 1520, {{.*}}, 1520, 63, 63, {{.*}}, 63]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%out: memref<?xf32>) kernel {
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %ti = arith.index_cast %tid : index to i32
      %x = arith.sitofp %ti : i32 to f32
      %sum = gpu.subgroup_reduce add %x : (f32) -> f32
      %max = gpu.all_reduce maximumf %x uniform {} : (f32) -> f32
      %j = arith.addi %tid, %c64 : index
      memref.store %sum, %out[%tid] : memref<?xf32>
      memref.store %max, %out[%j] : memref<?xf32>
      gpu.return
    }
  }
}
