// The cp.async kernel of async-copy.mlir without nvgpu.device_async_wait:
// a barrier does not wait for copies, so reading a neighbour's part of the
// tile races with its copy still in flight.
// RUN: not sympow-emulate %s --kernel copy --grid 1 --block 32 --arg f32:128=iota --arg f32:128 | FileCheck %s
// CHECK: emulator: race on workgroup memory at byte offset 16 in kernel 'copy', block (0, 0, 0): read by thread (0, 0, 0) (memref.load at {{.*}}async-copy-missing-wait.mlir:{{[0-9]+}}:{{[0-9]+}}) while the cp.async of thread (1, 0, 0) (nvgpu.device_async_copy at {{.*}}) into it is in flight (no nvgpu.device_async_wait completed its group)

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
