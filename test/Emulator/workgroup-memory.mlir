// Every kind of workgroup memory: a workgroup memref.global, memref.alloc in
// the workgroup space, an attribution, the dynamic buffer (viewed as f32),
// and a private attribution. Thread t writes t into each, and after a barrier
// reads its neighbour's: out[k * 32 + t] = (t + 1) % 32 + 100 k.
// RUN: sympow-emulate %s --kernel kinds --grid 1 --block 32 --dynamic-shared 128 --arg f32:128 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg0 = [1, 2, 3, {{.*}}, 31, 0, 101, 102, {{.*}}, 131, 100, 201, {{.*}}, 231, 200, 301, {{.*}}, 331, 300]
// With 64 dynamic bytes, thread 16 writes the 17th float of the view: past
// the dynamic buffer (the view's own size is not what bounds it).
// RUN: not sympow-emulate %s --kernel kinds --grid 1 --block 32 --dynamic-shared 64 --arg f32:128 | FileCheck %s --check-prefix=SMALL
// SMALL: emulator: out-of-bounds write of 4 bytes at byte offset 64 of a 64-byte workgroup allocation in kernel 'kinds', block (0, 0, 0), thread (16, 0, 0): memref.store

module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @table : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.func @kinds(%out: memref<?xf32>)
        workgroup(%attr: memref<32xf32, #gpu.address_space<workgroup>>)
        private(%mine: memref<1xf32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c96 = arith.constant 96 : index
      %h = arith.constant 100.0 : f32
      %tid = gpu.thread_id x
      %ti = arith.index_cast %tid : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %global = memref.get_global @table : memref<32xf32, #gpu.address_space<workgroup>>
      %alloc = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %dyn = memref.view %raw[%c0][%c32] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
      memref.store %tf, %mine[%c0] : memref<1xf32, #gpu.address_space<private>>
      %x = memref.load %mine[%c0] : memref<1xf32, #gpu.address_space<private>>
      %x1 = arith.addf %x, %h : f32
      %x2 = arith.addf %x1, %h : f32
      %x3 = arith.addf %x2, %h : f32
      memref.store %x, %global[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %x1, %alloc[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %x2, %attr[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %x3, %dyn[%tid] : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n0 = arith.addi %tid, %c1 : index
      %n = arith.remui %n0, %c32 : index
      %a = memref.load %global[%n] : memref<32xf32, #gpu.address_space<workgroup>>
      %b = memref.load %alloc[%n] : memref<32xf32, #gpu.address_space<workgroup>>
      %c = memref.load %attr[%n] : memref<32xf32, #gpu.address_space<workgroup>>
      %d = memref.load %dyn[%n] : memref<?xf32, #gpu.address_space<workgroup>>
      %i1 = arith.addi %tid, %c32 : index
      %i2 = arith.addi %tid, %c64 : index
      %i3 = arith.addi %tid, %c96 : index
      memref.store %a, %out[%tid] : memref<?xf32>
      memref.store %b, %out[%i1] : memref<?xf32>
      memref.store %c, %out[%i2] : memref<?xf32>
      memref.store %d, %out[%i3] : memref<?xf32>
      memref.dealloc %alloc : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
