// memref.atomic_rmw on workgroup and global memory: every thread of 4
// blocks adds 1 to a workgroup counter, thread 0 of each block then adds
// the block's count to a global total. Atomics do not race with each other.
// RUN: sympow-emulate %s --kernel count --grid 4 --block 64 --workers 2 --arg f32:1 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg0 = [256]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @count(%total: memref<?xf32>)
        workgroup(%n: memref<1xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        memref.store %zero, %n[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %old = memref.atomic_rmw addf %one, %n[%c0] : (f32, memref<1xf32, #gpu.address_space<workgroup>>) -> f32
      gpu.barrier
      scf.if %first {
        %count = memref.load %n[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
        %prev = memref.atomic_rmw addf %count, %total[%c0] : (f32, memref<?xf32>) -> f32
      }
      gpu.return
    }
  }
}
