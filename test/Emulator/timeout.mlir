// Block 0 spins until block 1 sets a flag. With one worker, block 1 never
// runs while block 0 spins (as on a GPU whose blocks are not all resident):
// the watchdog stops the launch and says so instead of hanging.
// RUN: not sympow-emulate %s --kernel wait --grid 2 --block 1 --workers 1 --timeout 1 --arg i32:1 | FileCheck %s
// CHECK: emulator: kernel 'wait' ran longer than 1 s and was stopped (a thread spinning on a flag another block sets, or an endless loop?)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wait(%flag: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %bid = gpu.block_id x
      %first = arith.cmpi eq, %bid, %c0 : index
      scf.if %first {
        scf.while : () -> () {
          %f = memref.load %flag[%c0] : memref<?xi32>
          %unset = arith.cmpi eq, %f, %zero : i32
          scf.condition(%unset)
        } do {
          scf.yield
        }
      } else {
        memref.store %one, %flag[%c0] : memref<?xi32>
      }
      gpu.return
    }
  }
}
