// 1-D vector.transfer_read past the end of a buffer: lowered to a masked
// load, checked lane by lane, so the masked-off tail is no fault and reads
// the padding. Thread t copies in[4t .. 4t + 3] (30 elements) to out.
// RUN: sympow-emulate %s --kernel tail --block 8 --arg f32:30=iota --arg f32:32 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg1 = [0, 1, 2, {{.*}}, 28, 29, -1, -1]
// A masked store whose enabled lanes run past the end is reported.
// RUN: not sympow-emulate %s --kernel store --block 1 --arg f32:6 | FileCheck %s --check-prefix=STORE
// STORE: emulator: out-of-bounds write of 4 bytes at byte offset 24 of a 24-byte global allocation in kernel 'store', block (0, 0, 0), thread (0, 0, 0): vector.maskedstore at {{.*}}masked.mlir:{{[0-9]+}}:{{[0-9]+}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tail(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c4 = arith.constant 4 : index
      %pad = arith.constant -1.0 : f32
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      %v = vector.transfer_read %in[%i], %pad : memref<?xf32>, vector<4xf32>
      vector.store %v, %out[%i] : memref<?xf32>, vector<4xf32>
      gpu.return
    }
    gpu.func @store(%out: memref<?xf32>) kernel {
      %c4 = arith.constant 4 : index
      %m = vector.constant_mask [3] : vector<4xi1>
      %v = arith.constant dense<1.0> : vector<4xf32>
      vector.maskedstore %out[%c4], %m, %v : memref<?xf32>, vector<4xi1>, vector<4xf32>
      gpu.return
    }
  }
}
