// Device functions (func.func in the gpu.module) called from a kernel:
// they read ids, take workgroup and global memrefs, and hold a barrier.
// out[t] = in[(t + 1) % 32] + 1.
// RUN: sympow-emulate %s --kernel main --block 32 --arg f32:32=iota --arg f32:32 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg1 = [2, 3, 4, {{.*}}, 32, 1]
// A device function's out-of-bounds access names the device function's op.
// RUN: not sympow-emulate %s --kernel main --block 33 --arg f32:32=iota --arg f32:33 | FileCheck %s --check-prefix=OOB
// OOB: emulator: out-of-bounds read of 4 bytes at byte offset 128 of a 128-byte global allocation in kernel 'main', block (0, 0, 0), thread (32, 0, 0): memref.load at {{.*}}device-function.mlir:[[@LINE+8]]:{{[0-9]+}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @stage(%in: memref<?xf32>,
                     %tile: memref<33xf32, #gpu.address_space<workgroup>>) {
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %x = memref.load %in[%tid] : memref<?xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %tile[%tid] : memref<33xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      return
    }
    gpu.func @main(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<33xf32, #gpu.address_space<workgroup>>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      func.call @stage(%in, %tile) : (memref<?xf32>, memref<33xf32, #gpu.address_space<workgroup>>) -> ()
      %tid = gpu.thread_id x
      %n0 = arith.addi %tid, %c1 : index
      %n = arith.remui %n0, %c32 : index
      %v = memref.load %tile[%n] : memref<33xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
