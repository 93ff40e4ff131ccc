// A block sum through workgroup memory: each block of 64 threads adds its
// 64 inputs with a tree of barriers. The emulator must give the exact sums
// and report nothing.
// RUN: sympow-emulate %s --kernel reduce --grid 4 --block 64 --arg f32:256=iota --arg f32:4 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg1 = [2016, 6112, 10208, 14304]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%buf: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<?xf32>
      memref.store %v, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c6 step %c1 {
        %s = arith.shrui %c32, %k : index
        %active = arith.cmpi ult, %tid, %s : index
        scf.if %active {
          %j = arith.addi %tid, %s : index
          %a = memref.load %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
          %b = memref.load %buf[%j] : memref<64xf32, #gpu.address_space<workgroup>>
          %sum = arith.addf %a, %b : f32
          memref.store %sum, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %r = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %r, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
