// RUN: sympow-opt %s --split-input-file --verify-diagnostics --sympow-lower-bf16-mma-sync | FileCheck %s

// bf16 m16n8k16 becomes nvvm.mma.sync on bf16x2 registers, f32 accumulation.
// CHECK-LABEL: gpu.func @bf16
// CHECK-COUNT-6: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// f16 is left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: gpu.func @f16
// CHECK: nvgpu.mma.sync
gpu.module @m {
  gpu.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %r = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %r : vector<2x2xf32>
  }
  gpu.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %r = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %r : vector<2x2xf32>
  }
}

// -----

gpu.module @m {
  gpu.func @bf16_k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    // expected-error @below {{bf16 mma.sync is lowered for m16n8k16 with f32 accumulators only}}
    %r = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.return %r : vector<2x2xf32>
  }
}
