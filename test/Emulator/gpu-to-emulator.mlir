// RUN: sympow-opt %s --sympow-gpu-to-emulator | FileCheck %s
// RUN: sympow-opt %s --sympow-gpu-to-emulator=check-accesses=false | FileCheck %s --check-prefix=NOCHECK
// RUN: sympow-opt %s --sympow-emulator-pipeline | FileCheck %s --check-prefix=LLVM

// The kernel becomes a host function with the two workgroup buffers
// appended; attributions are views of the static one.
// CHECK: module attributes {sympow_emu.kernels = {{\[}}["kernels__scale", "kernels::scale", 272, array<i32: 64, 1, 1>, true]]}
// CHECK-DAG: llvm.mlir.global internal constant @[[LOAD:__sympow_emu_site_[0-9]+]]("memref.load at {{.*}}gpu-to-emulator.mlir:{{[0-9]+}}:{{[0-9]+}}\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[BAR:__sympow_emu_site_[0-9]+]]("gpu.barrier at {{.*}}")
// CHECK-DAG: func.func private @__sympow_emu_query(i32) -> index
// CHECK-DAG: func.func private @__sympow_emu_access(index, index, index, index, i32, i64, !llvm.ptr)
// CHECK-DAG: func.func private @__sympow_emu_barrier(!llvm.ptr, i32)
// CHECK-LABEL: func.func @kernels__scale(
// CHECK-SAME: %[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[N:.*]]: i64, %[[STATIC:.*]]: memref<?xi8>, %[[DYN:.*]]: memref<?xi8>)
// CHECK-DAG: memref.view %[[STATIC]][%{{.*}}][] : memref<?xi8> to memref<64xf32>
// CHECK-DAG: memref.view %[[STATIC]][%{{.*}}][] : memref<?xi8> to memref<4xf32>
// CHECK: call @__sympow_emu_query(%{{.*}}) : (i32) -> index
// Global reads are checked against the argument's extent (space 0, read 1).
// CHECK: memref.extract_strided_metadata %[[IN]]
// CHECK: memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: call @__sympow_emu_access(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32, %c0_i64, %{{.*}})
// CHECK: memref.load %[[IN]]
// Workgroup writes: space 1 << 4 | write 2 | has-value 256 = 274, with the
// stored bits.
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: call @__sympow_emu_access({{.*}}, %c274_i32, %[[WIDE]], %{{.*}})
// CHECK: memref.store
// CHECK: %[[SITE:.*]] = llvm.mlir.addressof @[[BAR]] : !llvm.ptr
// CHECK: call @__sympow_emu_barrier(%[[SITE]], %{{.*}})
// CHECK: return

// NOCHECK-NOT: __sympow_emu_access(
// NOCHECK: call @__sympow_emu_barrier

// After the CPU lowering: the packed entry and the manifest.
// LLVM: llvm.mlir.global external constant @__sympow_emu_manifest("kernels::scale kernels__scale.packed 272 11 64 1 1 1\0A\00")
// LLVM: llvm.func @kernels__scale(
// LLVM: llvm.func @kernels__scale.packed(%{{.*}}: !llvm.ptr)
// LLVM: llvm.call @kernels__scale(

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%in: memref<?xf32>, %out: memref<?xf32>, %n: i64)
        workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>,
                  %flags: memref<4xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<?xf32>
      memref.store %v, %tile[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %tile[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
