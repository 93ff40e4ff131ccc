// A 32-element workgroup tile written at tid for 33 threads: thread 32
// writes past the allocation (into whatever follows it on a GPU).
// RUN: not sympow-emulate %s --kernel tile --grid 1 --block 33 --arg f32:33 | FileCheck %s
// CHECK: emulator: out-of-bounds write of 4 bytes at byte offset 128 of a 128-byte workgroup allocation in kernel 'tile', block (0, 0, 0), thread (32, 0, 0): memref.store at {{.*}}workgroup-out-of-bounds.mlir:[[@LINE+10]]:{{[0-9]+}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tile(%out: memref<?xf32>)
        workgroup(%a: memref<32xf32, #gpu.address_space<workgroup>>,
                  %b: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %f = arith.index_cast %tid : index to i32
      %v = arith.sitofp %f : i32 to f32
      memref.store %v, %a[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %v, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
