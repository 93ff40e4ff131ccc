// Each thread copies in[tid + 1] to out[tid]: the last thread reads one
// element past the end of `in`. The emulator reports the read with its
// kernel, block, thread and byte offset, and stops the launch.
// RUN: not sympow-emulate %s --kernel shift --grid 2 --block 32 --arg f32:64=iota --arg f32:64 | FileCheck %s
// CHECK: emulator: out-of-bounds read of 4 bytes at byte offset 256 of a 256-byte global allocation in kernel 'shift', block (1, 0, 0), thread (31, 0, 0): memref.load at {{.*}}out-of-bounds.mlir:[[@LINE+13]]:{{[0-9]+}}
// CHECK-NOT: emulator: ok

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shift(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c32 : index
      %i = arith.addi %base, %tid : index
      %next = arith.addi %i, %c1 : index
      %v = memref.load %in[%next] : memref<?xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
