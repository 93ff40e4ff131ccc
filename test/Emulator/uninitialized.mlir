// Only threads 0..15 fill the tile, all 32 read their own element after the
// barrier: thread 16 reads workgroup memory no thread wrote (0xff bytes,
// NaN here; whatever was left there on a GPU).
// RUN: not sympow-emulate %s --kernel partial --block 32 --arg f32:32 --print | FileCheck %s
// CHECK: emulator: read of uninitialized workgroup memory at byte offset 64 in kernel 'partial', block (0, 0, 0), thread (16, 0, 0): memref.load at {{.*}}uninitialized.mlir:{{[0-9]+}}:{{[0-9]+}} (no thread of the block wrote it)
// CHECK: arg0 = [0, 1, {{.*}}, 15, {{-?}}nan, {{-?}}nan,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @partial(%out: memref<?xf32>)
        workgroup(%tile: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c16 = arith.constant 16 : index
      %tid = gpu.thread_id x
      %ti = arith.index_cast %tid : index to i32
      %x = arith.sitofp %ti : i32 to f32
      %low = arith.cmpi ult, %tid, %c16 : index
      scf.if %low {
        memref.store %x, %tile[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %y = memref.load %tile[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
