// cp.async through nvgpu: each of 32 threads copies 4 floats of `in` into a
// workgroup tile, commits the group, waits for it, and after a barrier reads
// its neighbour's part: out[i] = 2 * in[(i + 4) % 128].
// RUN: sympow-emulate %s --kernel copy --grid 1 --block 32 --arg f32:128=iota --arg f32:128 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg1 = [8, 10, 12, 14, 16, 18,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<128xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %base = arith.muli %tid, %c4 : index
      %t = nvgpu.device_async_copy %in[%base], %tile[%base], 4
          : memref<?xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g
      gpu.barrier
      scf.for %e = %c0 to %c4 step %c1 {
        %i = arith.addi %base, %e : index
        %shifted = arith.addi %i, %c4 : index
        %j = arith.remui %shifted, %c128 : index
        %x = memref.load %tile[%j] : memref<128xf32, #gpu.address_space<workgroup>>
        %y = arith.mulf %x, %two : f32
        memref.store %y, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
