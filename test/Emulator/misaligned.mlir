// ldmatrix needs 16-byte aligned rows: in a 16x20 f16 tile, rows are 40
// bytes apart, so lane 1's row address is misaligned. A GPU faults
// ("misaligned address"); the emulator reports it and stops.
// RUN: not sympow-emulate %s --kernel rows --block 32 --arg f32:1 | FileCheck %s
// CHECK: emulator: misaligned ldmatrix row address in kernel 'rows', block (0, 0, 0), thread (1, 0, 0): 0x{{[0-9a-f]+}} is not a multiple of 16 bytes: nvgpu.ldmatrix at {{.*}}misaligned.mlir:{{[0-9]+}}:{{[0-9]+}}
// A larger llvm.align on an attribution is honoured in the static layout.
// RUN: sympow-opt %s --sympow-gpu-to-emulator | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8> to memref<16x20xf16>
// LAYOUT: memref.view %{{.*}}[%c640{{.*}}][] : memref<?xi8> to memref<4xf32>
// LAYOUT: memref.view %{{.*}}[%c768{{.*}}][] : memref<?xi8> to memref<4xf32>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rows(%out: memref<?xf32>)
        workgroup(%tile: memref<16x20xf16, #gpu.address_space<workgroup>>,
                  %pad: memref<4xf32, #gpu.address_space<workgroup>>,
                  %big: memref<4xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c20 = arith.constant 20 : index
      %zero = arith.constant 0.0 : f16
      %lane = gpu.thread_id x
      %row = arith.remui %lane, %c16 : index
      scf.for %j = %c0 to %c20 step %c1 {
        memref.store %zero, %tile[%row, %j] : memref<16x20xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %a = nvgpu.ldmatrix %tile[%row, %c0] {numTiles = 2 : i32, transpose = false}
          : memref<16x20xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
      gpu.return
    }
  }
}
