// Matrix tiles and dot: the ops print and parse back, and
// --sympow-convert-tile-to-gpu lowers them to mma.sync fragments: one
// ldmatrix per operand fragment from workgroup memory (x4 for A, x2 for B,
// one x4 per two B fragments stored [n][k], .trans as the storage order
// needs), one mma.sync m16n8k16 per 16 x 8 piece
// and k step, per-element accesses elsewhere (guarded with bounds), and a
// split_bf16 dot as three bf16 dots on hi/lo halves (two when one operand
// is bf16). The PTX of the lowered
// kernels for sm_80 and sm_90a has the tensor-core instructions.
// RUN: sympow-opt %s | sympow-opt | FileCheck %s --check-prefix=ROUND
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %S/dot-emulate.mlir --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: sympow-opt %S/dot-emulate.mlir --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// PTX: .target sm_{{80|90a}}
// PTX-SAME: .entry matmul(
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-SAME: .entry matmul_t(
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-SAME: .entry split(
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

#mma = #sympow_tile.mma<warps = [1, 2]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
#mma11 = #sympow_tile.mma<warps = [1, 1]>
#A11 = #sympow_tile.dot_operand<operand = 0, parent = #mma11>
#B11 = #sympow_tile.dot_operand<operand = 1, parent = #mma11>
#mma22 = #sympow_tile.mma<warps = [2, 2]>
#A22 = #sympow_tile.dot_operand<operand = 0, parent = #mma22>
#B22 = #sympow_tile.dot_operand<operand = 1, parent = #mma22>

module attributes {gpu.container_module} {
  gpu.module @m {
    // ROUND-LABEL: gpu.func @dot(
    // ROUND: sympow_tile.matrix_load %{{.*}}[%{{.*}}] stride 24 : memref<384xbf16, #gpu.address_space<workgroup>> -> tensor<16x16xbf16, #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [1, 2]>>>
    // ROUND: sympow_tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xbf16, {{.*}}>, tensor<16x16xbf16, {{.*}}> -> tensor<16x16xf32, #sympow_tile.mma<warps = [1, 2]>>
    // ROUND: sympow_tile.matrix_store %{{.*}}, %{{.*}}[%{{.*}}] stride 16 : tensor<16x16xf32,

    // Warps [1, 2]: each warp one 16 x 8 piece, one k step.
    // CHECK-LABEL: gpu.func @dot(
    // CHECK-SAME: %[[OUT:.*]]: memref<?xf32>) workgroup(%[[SA:.*]] : memref<384xbf16, #gpu.address_space<workgroup>> {{.*}}, %[[SB:.*]] : memref<384xbf16
    // CHECK-SAME: sympow.launch = {block = array<i32: 64, 1, 1>
    // CHECK-NOT: sympow_tile
    // A, stored [m][k]: lane l reads row l % 16 at column 8 (l / 16).
    // CHECK: %[[TID:.*]] = gpu.thread_id x
    // CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
    // CHECK: %[[R:.*]] = arith.remui %[[LANE]], %c16
    // CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[R]]
    // CHECK: %[[H:.*]] = arith.divui %[[LANE]], %c16
    // CHECK: %[[COL:.*]] = arith.muli %[[H]], %c8
    // CHECK: %[[RS:.*]] = arith.muli %[[ROW]], %c24
    // CHECK: %[[AT:.*]] = arith.addi %[[RS]], %[[COL]]
    // CHECK: %[[AT0:.*]] = arith.addi %c0, %[[AT]]
    // CHECK: %[[FA:.*]] = nvgpu.ldmatrix %[[SA]][%[[AT0]]] {numTiles = 4 : i32, transpose = false} : memref<384xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    // CHECK: %[[TA:.*]] = vector.insert %[[FA]], %{{.*}} [0, 0] : vector<4x2xbf16> into vector<1x1x4x2xbf16>
    // B, stored [k][n]: rows k from lanes 0-15, transposed on the way.
    // CHECK: %[[FB:.*]] = nvgpu.ldmatrix %[[SB]][%{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<384xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    // CHECK: %[[TB:.*]] = vector.insert %[[FB]], %{{.*}} [0, 0] : vector<2x2xbf16> into vector<1x1x2x2xbf16>
    // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x2x2xf32>
    // CHECK: %[[C:.*]] = vector.extract %[[ZERO]][0, 0]
    // CHECK: %[[A:.*]] = vector.extract %[[TA]][0, 0]
    // CHECK: %[[B:.*]] = vector.extract %[[TB]][0, 0]
    // CHECK: %[[D:.*]] = nvgpu.mma.sync(%[[A]], %[[B]], %[[C]]) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // CHECK: %[[ACC:.*]] = vector.insert %[[D]], %[[ZERO]] [0, 0] : vector<2x2xf32> into vector<1x1x2x2xf32>
    // The accumulator: element (r, c) of the lane at row g + 8 r, column 2 (l % 4) + c.
    // CHECK: %[[FIRST:.*]] = arith.addi %c0, %{{.*}} : index
    // CHECK: %[[E1:.*]] = arith.addi %[[FIRST]], %c1
    // CHECK: %[[E2:.*]] = arith.addi %[[FIRST]], %c128
    // CHECK: %[[E3:.*]] = arith.addi %[[FIRST]], %c129
    // CHECK: %[[X0:.*]] = vector.extract %[[ACC]][0, 0, 0, 0]
    // CHECK: %[[X3:.*]] = vector.extract %[[ACC]][0, 0, 1, 1]
    // CHECK: memref.store %[[X0]], %[[OUT]][%[[FIRST]]]
    // CHECK: memref.store %{{.*}}, %[[OUT]][%[[E1]]]
    // CHECK: memref.store %{{.*}}, %[[OUT]][%[[E2]]]
    // CHECK: memref.store %[[X3]], %[[OUT]][%[[E3]]]
    // CHECK: gpu.return
    gpu.func @dot(%out: memref<?xf32>)
        workgroup(%sa: memref<384xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<384xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %a = sympow_tile.matrix_load %sa[%c0] stride 24 : memref<384xbf16, #gpu.address_space<workgroup>> -> tensor<16x16xbf16, #A>
      %b = sympow_tile.matrix_load %sb[%c0] stride 24 : memref<384xbf16, #gpu.address_space<workgroup>> -> tensor<16x16xbf16, #B>
      %zero = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
      %c = sympow_tile.dot %a, %b, %zero : tensor<16x16xbf16, #A>, tensor<16x16xbf16, #B> -> tensor<16x16xf32, #mma>
      sympow_tile.matrix_store %c, %out[%c0] stride 16 : tensor<16x16xf32, #mma>, memref<?xf32>
      gpu.return
    }

    // Transposed storage: A from [k][m] with ldmatrix x4 .trans, B from
    // [n][k] with ldmatrix x2. Warps [2, 2] over 32 x 16: the same.
    // CHECK-LABEL: gpu.func @transposed(
    // CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<512xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    // CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false} : memref<512xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    // CHECK-COUNT-1: nvgpu.mma.sync
    // CHECK-NOT: nvgpu.mma.sync
    // CHECK: gpu.return
    gpu.func @transposed(%out: memref<?xf32>)
        workgroup(%sa: memref<512xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<512xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %a = sympow_tile.matrix_load %sa[%c0] stride 40 transposed : memref<512xbf16, #gpu.address_space<workgroup>> -> tensor<32x16xbf16, #A22>
      %b = sympow_tile.matrix_load %sb[%c0] stride 24 transposed : memref<512xbf16, #gpu.address_space<workgroup>> -> tensor<16x16xbf16, #B22>
      %zero = arith.constant dense<0.0> : tensor<32x16xf32, #mma22>
      %c = sympow_tile.dot %a, %b, %zero : tensor<32x16xbf16, #A22>, tensor<16x16xbf16, #B22> -> tensor<32x16xf32, #mma22>
      sympow_tile.matrix_store %c, %out[%c0] stride 16 : tensor<32x16xf32, #mma22>, memref<?xf32>
      gpu.return
    }

    // B stored [n][k] with three fragments per warp: fragments 0 and 1 from
    // one ldmatrix x4 (lanes 16-31 at n + 8), fragment 2 from an x2.
    // CHECK-LABEL: gpu.func @transposed_pairs(
    // CHECK-SAME: workgroup(%[[SA:.*]] : memref<512xbf16, #gpu.address_space<workgroup>> {{.*}}, %[[SB:.*]] : memref<512xbf16
    // CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
    // CHECK: %[[HALF:.*]] = arith.divui %[[LANE]], %c16
    // CHECK: %[[NEXT:.*]] = arith.muli %[[HALF]], %c8
    // CHECK: nvgpu.ldmatrix %[[SA]]
    // CHECK: %[[R:.*]] = arith.remui %[[LANE]], %c8
    // CHECK: arith.addi %[[R]], %[[NEXT]]
    // CHECK: %[[PAIR:.*]] = nvgpu.ldmatrix %[[SB]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<512xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    // CHECK: %[[F0:.*]] = vector.extract_strided_slice %[[PAIR]] {offsets = [0, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xbf16> to vector<2x2xbf16>
    // CHECK: vector.insert %[[F0]], %{{.*}} [0, 0]
    // CHECK: %[[F1:.*]] = vector.extract_strided_slice %[[PAIR]] {offsets = [2, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xbf16> to vector<2x2xbf16>
    // CHECK: vector.insert %[[F1]], %{{.*}} [0, 1]
    // CHECK: %[[F2:.*]] = nvgpu.ldmatrix %[[SB]][%{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<512xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    // CHECK: vector.insert %[[F2]], %{{.*}} [0, 2]
    // CHECK-COUNT-3: nvgpu.mma.sync
    // CHECK-NOT: nvgpu.mma.sync
    // CHECK: gpu.return
    gpu.func @transposed_pairs(%out: memref<?xf32>)
        workgroup(%sa: memref<512xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<512xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 32, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %a = sympow_tile.matrix_load %sa[%c0] stride 24 : memref<512xbf16, #gpu.address_space<workgroup>> -> tensor<16x16xbf16, #A11>
      %b = sympow_tile.matrix_load %sb[%c0] stride 24 transposed : memref<512xbf16, #gpu.address_space<workgroup>> -> tensor<16x24xbf16, #B11>
      %zero = arith.constant dense<0.0> : tensor<16x24xf32, #mma11>
      %c = sympow_tile.dot %a, %b, %zero : tensor<16x16xbf16, #A11>, tensor<16x24xbf16, #B11> -> tensor<16x24xf32, #mma11>
      sympow_tile.matrix_store %c, %out[%c0] stride 24 : tensor<16x24xf32, #mma11>, memref<?xf32>
      gpu.return
    }

    // f32 operands from global memory, element by element, rows past %m
    // masked (read as 0, not written); split_bf16 is three bf16 dots on the
    // halves hi = bf16(x), lo = bf16(x - hi): lo_a hi_b, hi_a lo_b, hi_a hi_b.
    // ROUND-LABEL: gpu.func @split(
    // ROUND: sympow_tile.matrix_load %{{.*}}[%{{.*}}] stride 16 bounds(%{{.*}}, %{{.*}}) : memref<?xf32> -> tensor<16x16xf32,
    // ROUND: sympow_tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = split_bf16 : tensor<16x16xf32,
    // ROUND: sympow_tile.matrix_store %{{.*}}, %{{.*}}[%{{.*}}] stride 16 transposed bounds(%{{.*}}, %{{.*}}) : tensor<16x16xf32,
    // CHECK-LABEL: gpu.func @split(
    // CHECK-SAME: %[[GA:.*]]: memref<?xf32>, %[[GB:.*]]: memref<?xf32>, %[[GO:.*]]: memref<?xf32>, %[[M:.*]]: index
    // CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[M]] : index
    // CHECK: %[[BOTH:.*]] = arith.andi %[[IN]], %{{.*}} : i1
    // CHECK: scf.if %[[BOTH]] -> (f32) {
    // CHECK:   memref.load %[[GA]][%{{.*}}] : memref<?xf32>
    // CHECK: } else {
    // CHECK:   scf.yield %cst{{.*}} : f32
    // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
    // CHECK: %[[AHI:.*]] = arith.truncf %[[AF:.*]] : vector<1x1x4x2xf32> to vector<1x1x4x2xbf16>
    // CHECK: %[[AHI32:.*]] = arith.extf %[[AHI]] : vector<1x1x4x2xbf16> to vector<1x1x4x2xf32>
    // CHECK: %[[AREST:.*]] = arith.subf %[[AF]], %[[AHI32]] : vector<1x1x4x2xf32>
    // CHECK: %[[ALO:.*]] = arith.truncf %[[AREST]] : vector<1x1x4x2xf32> to vector<1x1x4x2xbf16>
    // CHECK: %[[BHI:.*]] = arith.truncf %{{.*}} : vector<1x1x2x2xf32> to vector<1x1x2x2xbf16>
    // CHECK: %[[BLO:.*]] = arith.truncf %{{.*}} : vector<1x1x2x2xf32> to vector<1x1x2x2xbf16>
    // The lowering runs CSE: each fragment is extracted once.
    // CHECK: %[[ALO0:.*]] = vector.extract %[[ALO]][0, 0]
    // CHECK: %[[BHI0:.*]] = vector.extract %[[BHI]][0, 0]
    // CHECK: nvgpu.mma.sync(%[[ALO0]], %[[BHI0]],
    // CHECK: %[[AHI0:.*]] = vector.extract %[[AHI]][0, 0]
    // CHECK: %[[BLO0:.*]] = vector.extract %[[BLO]][0, 0]
    // CHECK: nvgpu.mma.sync(%[[AHI0]], %[[BLO0]],
    // CHECK: nvgpu.mma.sync(%[[AHI0]], %[[BHI0]],
    // CHECK-NOT: nvgpu.mma.sync
    // CHECK: scf.if %{{.*}} {
    // CHECK:   memref.store %{{.*}}, %[[GO]][%{{.*}}] : memref<?xf32>
    // CHECK: gpu.return
    gpu.func @split(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>, %m: index)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %ta = sympow_tile.matrix_load %a[%c0] stride 16 bounds(%m, %c16) : memref<?xf32> -> tensor<16x16xf32, #A>
      %tb = sympow_tile.matrix_load %b[%c0] stride 16 : memref<?xf32> -> tensor<16x16xf32, #B>
      %zero = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
      %c = sympow_tile.dot %ta, %tb, %zero precision = split_bf16 : tensor<16x16xf32, #A>, tensor<16x16xf32, #B> -> tensor<16x16xf32, #mma>
      sympow_tile.matrix_store %c, %out[%c0] stride 16 transposed bounds(%m, %c16) : tensor<16x16xf32, #mma>, memref<?xf32>
      gpu.return
    }

    // One f32 and one bf16 operand: only the f32 one is split, and the
    // bf16 one (exact) meets both halves: lo_a b, hi_a b.
    // ROUND-LABEL: gpu.func @split_mixed(
    // ROUND: sympow_tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = split_bf16 : tensor<16x16xf32, #{{.*}}>, tensor<16x16xbf16,
    // CHECK-LABEL: gpu.func @split_mixed(
    // CHECK: %[[MHI:.*]] = arith.truncf %[[MF:.*]] : vector<1x1x4x2xf32> to vector<1x1x4x2xbf16>
    // CHECK: %[[MLO:.*]] = arith.truncf %{{.*}} : vector<1x1x4x2xf32> to vector<1x1x4x2xbf16>
    // CHECK-NOT: arith.truncf
    // CHECK: vector.extract %[[MLO]][0, 0]
    // CHECK: nvgpu.mma.sync
    // CHECK: vector.extract %[[MHI]][0, 0]
    // CHECK: nvgpu.mma.sync
    // CHECK-NOT: nvgpu.mma.sync
    // CHECK: gpu.return
    gpu.func @split_mixed(%a: memref<?xf32>, %b: memref<?xbf16>, %out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %ta = sympow_tile.matrix_load %a[%c0] stride 16 : memref<?xf32> -> tensor<16x16xf32, #A>
      %tb = sympow_tile.matrix_load %b[%c0] stride 16 : memref<?xbf16> -> tensor<16x16xbf16, #B>
      %zero = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
      %c = sympow_tile.dot %ta, %tb, %zero precision = split_bf16 : tensor<16x16xf32, #A>, tensor<16x16xbf16, #B> -> tensor<16x16xf32, #mma>
      sympow_tile.matrix_store %c, %out[%c0] stride 16 : tensor<16x16xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
