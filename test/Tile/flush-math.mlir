// sympow_tile.exp2_ftz and log2_ftz: element-wise on tiles, distributed
// like arith and math, then per target.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-lower-flush-math | FileCheck %s --check-prefix=NVVM
// On the emulator (x = -120 - 2 i): 2^x flushed to +0 below 2^-126, and
// log2 of the unflushed 2^x, which is subnormal from i = 4 on, -inf there.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel flush --grid 1 --block 4 --arg f32:8=iota --arg f32:8 --arg f32:8 --print | FileCheck %s --check-prefix=EMU

// CHECK-LABEL: gpu.func @flush
// CHECK: sympow_tile.exp2_ftz %{{.*}} : vector<2xf32>
// CHECK: math.exp2
// CHECK: sympow_tile.log2_ftz %{{.*}} : vector<2xf32>
// Outside tile kernels (what the tile lowering leaves), on scalars.
// CHECK-LABEL: gpu.func @scalar
// CHECK: sympow_tile.exp2_ftz %{{.*}} : f32

// A thread's vector element by element, scalars as they are.
// NVVM-LABEL: gpu.func @flush
// NVVM-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// NVVM-COUNT-2: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// NVVM-LABEL: gpu.func @scalar
// NVVM: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// NVVM-NOT: sympow_tile.

// Counted as the GPU runs them: one sfu op an element (2 a thread for each
// of exp2_ftz, math.exp2, log2_ftz), and the flushes the emulator adds
// not at all (no fp32 besides the fma).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel flush --grid 1 --block 4 --arg f32:8=iota --arg f32:8 --arg f32:8 --counts | FileCheck %s --check-prefix=COUNTS
// COUNTS: fp32_fma 8 8
// COUNTS-NEXT: fp32_alu 0 0
// COUNTS: sfu 24 24

// EMU: emulator: ok
// EMU: arg1 = [7.52316e-37, 1.88079e-37, 4.70198e-38, 1.17549e-38, 0, 0, 0, 0]
// EMU: arg2 = [-120, -122, -124, -126, -inf, -inf, -inf, -inf]

#b = #sympow_tile.blocked<threads = 4, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @flush(%in: memref<?xf32>, %exps: memref<?xf32>,
                    %logs: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<8xindex, #b>
      %v = sympow_tile.load %in[%i] : memref<?xf32> -> tensor<8xf32, #b>
      %minus2 = arith.constant dense<-2.0> : tensor<8xf32, #b>
      %base = arith.constant dense<-120.0> : tensor<8xf32, #b>
      %x = math.fma %v, %minus2, %base : tensor<8xf32, #b>
      %e = sympow_tile.exp2_ftz %x : tensor<8xf32, #b>
      sympow_tile.store %e, %exps[%i] : tensor<8xf32, #b>, memref<?xf32>
      %exact = math.exp2 %x : tensor<8xf32, #b>
      %l = sympow_tile.log2_ftz %exact : tensor<8xf32, #b>
      sympow_tile.store %l, %logs[%i] : tensor<8xf32, #b>, memref<?xf32>
      gpu.return
    }
    gpu.func @scalar(%x: f32) -> f32 {
      %e = sympow_tile.exp2_ftz %x : f32
      gpu.return %e : f32
    }
  }
}
