// math.fma on bf16 becomes llvm.intr.fma (NVPTX's fma.rn.bf16x2), where
// convert-gpu-to-nvvm would call libdevice's f32 fmaf and round back; f16
// and f32 fma are left as they are.
// RUN: sympow-opt %s --sympow-lower-bf16-fma | FileCheck %s
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @pair
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// CHECK-NOT: math.fma
// CHECK-LABEL: gpu.func @others
// CHECK: math.fma %{{.*}} : vector<2xf16>
// CHECK: math.fma %{{.*}} : f32
// PTX: fma.rn.bf16x2
// PTX-NOT: __nv_fmaf
gpu.module @m {
  gpu.func @pair(%a: vector<2xbf16>, %b: vector<2xbf16>, %c: vector<2xbf16>,
                 %out: memref<2xbf16>) kernel {
    %r = math.fma %a, %b, %c : vector<2xbf16>
    %i = arith.constant 0 : index
    vector.store %r, %out[%i] : memref<2xbf16>, vector<2xbf16>
    gpu.return
  }
  gpu.func @others(%a: vector<2xf16>, %x: f32, %out: memref<2xf16>,
                   %y: memref<1xf32>) kernel {
    %r = math.fma %a, %a, %a : vector<2xf16>
    %s = math.fma %x, %x, %x : f32
    %i = arith.constant 0 : index
    vector.store %r, %out[%i] : memref<2xf16>, vector<2xf16>
    memref.store %s, %y[%i] : memref<1xf32>
    gpu.return
  }
}
