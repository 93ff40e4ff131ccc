// A barrier inside `if tid < 16`: threads 16..63 never reach it. On a GPU
// this hangs or corrupts; the emulator reports it and returns.
// RUN: not sympow-emulate %s --kernel diverge --grid 1 --block 64 --arg f32:64 | FileCheck %s
// CHECK: emulator: divergent barrier in kernel 'diverge', block (0, 0, 0): 16 threads (first (0, 0, 0)) wait at gpu.barrier at {{.*}}divergent-barrier.mlir:[[@LINE+12]]:{{[0-9]+}}; 48 threads (first (16, 0, 0)) exited without reaching it

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @diverge(%out: memref<?xf32>)
        workgroup(%buf: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c16 = arith.constant 16 : index
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %low = arith.cmpi ult, %tid, %c16 : index
      scf.if %low {
        memref.store %one, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
        gpu.barrier
      }
      memref.store %one, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
