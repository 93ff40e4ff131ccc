// RUN: sympow-opt %s --sympow-gpu-to-emulator | FileCheck %s

// Warp collectives become runtime calls with scratch buffers allocated once
// at the function's entry; ids are queries.
// CHECK-LABEL: func.func @m__warp(
// CHECK-DAG: memref.alloca() : memref<8xf16>
// CHECK-DAG: memref.alloca() : memref<4xf16>
// CHECK-DAG: memref.alloca() : memref<4xf32>
// CHECK: call @__sympow_emu_query(%c12_i32)
// CHECK: %[[V:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[W:.*]] = arith.extui %[[V]] : i32 to i64
// CHECK: call @__sympow_emu_shuffle(%[[W]], %{{.*}}, %{{.*}}, %c0_i32, %{{.*}}) : (i64, i32, i32, i32, !llvm.ptr) -> i64
// CHECK: call @__sympow_emu_shuffle_valid() : () -> i32
// CHECK: call @__sympow_emu_ldmatrix({{.*}}) : (i64, i64, i64, i32, i32, i32, i32, i64, !llvm.ptr) -> ()
// CHECK: vector.shape_cast %{{.*}} : vector<8xf16> to vector<4x2xf16>
// CHECK: call @__sympow_emu_mma(%c16_i32{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c3_i32{{[_0-9]*}},
// CHECK: call @__sympow_emu_async_copy(
// CHECK: call @__sympow_emu_async_commit() : () -> i32
// CHECK: call @__sympow_emu_async_wait(%c1_i32{{[_0-9]*}})
// CHECK-NOT: nvgpu.
// CHECK-NOT: gpu.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @warp(%g: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%s: memref<16x16xf16, #gpu.address_space<workgroup>>,
                  %t: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %lane = gpu.lane_id
      %x = memref.load %g[%lane] : memref<?xf32>
      %o = arith.constant 1 : i32
      %w = arith.constant 32 : i32
      %y, %ok = gpu.shuffle xor %x, %o, %w : f32
      %a = nvgpu.ldmatrix %s[%c0, %c0] {numTiles = 4 : i32, transpose = false}
          : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      %b = vector.extract_strided_slice %a {offsets = [0, 0], sizes = [2, 2], strides = [1, 1]}
          : vector<4x2xf16> to vector<2x2xf16>
      %c = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
          : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %tok = nvgpu.device_async_copy %g[%c0], %t[%c0], 4
          : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
      %grp = nvgpu.device_async_create_group %tok
      nvgpu.device_async_wait %grp {numGroups = 1 : i32}
      %e = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %z = arith.addf %y, %e : f32
      memref.store %z, %out[%lane] : memref<?xf32>
      gpu.return
    }
  }
}
