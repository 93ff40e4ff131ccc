// Two threads storing to one workgroup word between barriers race, unless
// they store the same bits (every lane setting one flag is benign on a GPU).
// RUN: not sympow-emulate %s --kernel differ --block 32 --arg f32:1 | FileCheck %s --check-prefix=DIFFER
// DIFFER: emulator: race on workgroup memory at byte offset 0 in kernel 'differ', block (0, 0, 0): write by thread (0, 0, 0) (memref.store at {{.*}}) and write by thread (1, 0, 0) (memref.store at {{.*}}) with no barrier between them
// RUN: sympow-emulate %s --kernel same --block 32 --arg f32:1 --print | FileCheck %s --check-prefix=SAME
// SAME: emulator: ok
// SAME: arg0 = [1]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @differ(%out: memref<?xf32>)
        workgroup(%w: memref<1xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %ti = arith.index_cast %tid : index to i32
      %x = arith.sitofp %ti : i32 to f32
      memref.store %x, %w[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %w[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%c0] : memref<?xf32>
      gpu.return
    }
    gpu.func @same(%out: memref<?xf32>)
        workgroup(%w: memref<1xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      memref.store %one, %w[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %y = memref.load %w[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%c0] : memref<?xf32>
      }
      gpu.return
    }
  }
}
