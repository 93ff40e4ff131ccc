// The attention kernel's structure for several variants: one gpu.module per
// variant with one gpu.func kernel following docs/KernelABI.md.

// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=4 d=32 e=64 hq=8 h=2 dtype=f32 gate=both" | FileCheck %s --check-prefix=F32
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=f16 gate=data schedule=learned rotary-base=65536 rate-scale=6.283185307179586" | FileCheck %s --check-prefix=LEARNED
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=bf16 schedule=warped length=4096 layout=half rotary-dims=32" | FileCheck %s --check-prefix=WARPED
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=bf16 gate=head schedule=uniform path=scalar" | FileCheck %s --check-prefix=UNIFORM
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=32 dtype=bf16 schedule=uniform" | FileCheck %s --check-prefix=SPLIT
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 e=256 hq=2 dtype=bf16" | FileCheck %s --check-prefix=WIDE

// bf16 without gates or rotation: the tile kernel (AttentionTile.cpp), one
// warpgroup of 64 query rows. One 16-byte aligned operand array: q (64 rows
// of 72) until its fragments are in registers, then a step's keys
// (canonical K-major layout, 64 x 64) and its [V | 1] (64 x 72) after
// them; four programs per SM (128 registers).
// BF16: module attributes {gpu.container_module}
// BF16: gpu.module @sympow_p2_d64_e64_hq1_h1_bf16_gnone_none_mma
// BF16: gpu.func @attention(%{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: i64, %{{.*}}: i64)
// BF16-SAME: workgroup(%[[OPS:.*]] : memref<8704xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// BF16-SAME: nvvm.minctasm = 4 : i32, sympow.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_bytes = 0 : i64, grid_y = 1 : i64, tokens_per_block = 64 : i64}
// q arrives by cp.async, zero-filled past T.
// BF16: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<?xbf16> to memref<8704xbf16, #gpu.address_space<workgroup>>
// The diagonal step: keys and values by cp.async, made visible to the
// MMAs' async proxy, then S = Q K^T as four m64n64k16 warpgroup MMAs (q's A
// fragments from registers, keys through descriptors: 8 keys 128 bytes
// apart, the next 8 columns 1024 bytes on).
// BF16: nvgpu.device_async_copy %arg1{{.*}} to memref<8704xbf16, #gpu.address_space<workgroup>>
// BF16: nvgpu.device_async_copy %arg2{{.*}} to memref<8704xbf16, #gpu.address_space<workgroup>>
// BF16: sympow_tile.async_proxy_fence
// BF16-NEXT: gpu.barrier
// BF16-NEXT: sympow_tile.warpgroup_fence
// BF16-NEXT: sympow_tile.warpgroup_descriptor %[[OPS]][%{{.*}}] swizzle 0 leading 1024 stride 128
// BF16-NEXT: sympow_tile.warpgroup_mma %{{.*}} {accumulate = false} : vector<1x1x4x2xbf16>, bf16, vector<1x8x2x2xf32>
// Its masked log weights per score, subnormals flushed (one MUFU each on
// the GPU).
// BF16: sympow_tile.log2_ftz
// BF16: sympow_tile.exp2_ftz
// P [V | 1] with P from registers, [V | 1] N-major (transposed B).
// BF16: sympow_tile.warpgroup_descriptor %[[OPS]][%{{.*}}] swizzle 0 leading 128 stride 1024
// BF16-NEXT: sympow_tile.warpgroup_mma %{{.*}} {transposeB} : vector<1x1x4x2xbf16>, bf16, vector<1x9x2x2xf32>
// The steps before the diagonal: no log or exp per score (row tiles of
// 64 x 8 only).
// BF16: scf.for
// BF16-NOT: sympow_tile.log2_ftz
// BF16: sympow_tile.warpgroup_mma
// BF16-NOT: sympow_tile.exp2_ftz
// BF16: scf.yield

// f32: the FMA kernel (AttentionFma.cpp), no tensor cores; GQA maps query
// head 8 -> 2. Flat f32 tiles of K (Q first, 64 x 32) and V (64 x 64), the
// gate prefix and its staging; 4 threads a row, whose partial dots meet in
// xor shuffles by 1 and 2 (segment_reduce).
// F32: gpu.module @sympow_p4_d32_e64_hq8_h2_f32_gboth_none_fma
// F32: gpu.func @attention(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %[[LOGG:.*]]: memref<?xf32>, %[[GAMMA:.*]]: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: i64, %{{.*}}: i64)
// F32-SAME: workgroup(%{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// F32-SAME: known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32
// F32-SAME: grid_y = 8 : i64, tokens_per_block = 64 : i64
// F32: %[[HQ:.*]] = gpu.block_id y
// F32: %[[G:.*]] = arith.constant 4 : index
// F32: arith.divui %[[HQ]], %[[G]] : index
// F32: memref.load %[[GAMMA]]
// F32: memref.load %[[LOGG]]
// F32: math.fma
// F32: gpu.shuffle xor %{{.*}}, %c1_i32
// F32: gpu.shuffle xor %{{.*}}, %c2_i32
// F32: arith.constant 4.000000e+00 : f32
// F32-NOT: nvgpu.
// F32-NOT: math.cos
// F32: gpu.return

// learned, f16: the tile kernel reads q and k as rotate_qk left them (f16
// hi + lo halves, 2 x 64 columns a token): no beta, no angle math here.
// The operand array holds q (64 rows of 136) until its fragments are in
// registers, then a step's key halves (64 x 128) and [V | 1] (64 x 72);
// three programs per SM (168 registers).
// LEARNED: gpu.module @sympow_p2_d64_e64_hq1_h1_f16_gdata_learned_r64i_mma
// LEARNED: gpu.func @attention(%{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf16>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf16>, %{{.*}}: i64, %{{.*}}: i64)
// LEARNED-SAME: workgroup(%{{.*}} : memref<12800xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// LEARNED-SAME: nvvm.minctasm = 3 : i32
// LEARNED-NOT: math.cos
// LEARNED: gpu.return

// warped: a relative angle w(i - j) = L*a/(a + L) on the FMA kernel.
// WARPED: gpu.module @sympow_p2_d64_e64_hq1_h1_bf16_gnone_warped_r32h_L4096_fma
// WARPED-SAME: {
// cos and sin of w(age) * theta per (age, pair) of a tile pair: 2*32 - 1
// ages of 16 pairs (+ 1 keeps rows off one bank).
// WARPED: memref<1071xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<1071xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// WARPED-NOT: nvgpu.mma.sync
// WARPED: arith.constant 4.096000e+03 : f64
// WARPED: arith.divf %{{.*}} : f64
// WARPED: math.floor %{{.*}} : f64
// WARPED: math.cos
// WARPED: gpu.return

// uniform on the FMA kernel (path=scalar) with a per-head gate: no beta
// argument.
// UNIFORM: gpu.func @attention(%{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xbf16>, %{{.*}}: i64, %{{.*}}: i64)
// UNIFORM-NOT: nvgpu.
// UNIFORM: math.cos
// bf16 with rotation: Q.K = lo.hi + hi.lo + hi.hi per k step of 16. q's
// fragments are its hi half's columns 0 and 16, then its lo half's (32,
// 48); the keys' hi half at element 0 (k step 0) and 1024 (k step 16), its
// lo half from 2048 (d = 32 columns of 64 keys on).
// SPLIT: gpu.func @attention(%{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %{{.*}}: i64, %{{.*}}: i64) workgroup(%[[OPS:.*]] : memref<6656xbf16
// SPLIT: %[[QHI0:.*]] = vector.insert
// SPLIT: %[[QHI1:.*]] = vector.insert
// SPLIT: %[[QLO0:.*]] = vector.insert
// SPLIT: %[[QLO1:.*]] = vector.insert
// SPLIT: sympow_tile.warpgroup_fence
// SPLIT-NEXT: %[[KHI0:.*]] = sympow_tile.warpgroup_descriptor %[[OPS]][%c0]
// SPLIT-NEXT: %[[S0:.*]] = sympow_tile.warpgroup_mma %[[QLO0]], %[[KHI0]], %{{.*}} {accumulate = false}
// SPLIT-NEXT: %[[KLO0:.*]] = sympow_tile.warpgroup_descriptor %[[OPS]][%c2048]
// SPLIT-NEXT: %[[S1:.*]] = sympow_tile.warpgroup_mma %[[QHI0]], %[[KLO0]], %[[S0]] :
// SPLIT-NEXT: %[[S2:.*]] = sympow_tile.warpgroup_mma %[[QHI0]], %[[KHI0]], %[[S1]] :
// SPLIT-NEXT: %[[KHI1:.*]] = sympow_tile.warpgroup_descriptor %[[OPS]][%c1024]
// SPLIT-NEXT: %[[S3:.*]] = sympow_tile.warpgroup_mma %[[QLO1]], %[[KHI1]], %[[S2]] :
// SPLIT-NEXT: %[[KLO1:.*]] = sympow_tile.warpgroup_descriptor %[[OPS]][%c3072]
// SPLIT-NEXT: %[[S4:.*]] = sympow_tile.warpgroup_mma %[[QHI1]], %[[KLO1]], %[[S3]] :
// SPLIT-NEXT: sympow_tile.warpgroup_mma %[[QHI1]], %[[KHI1]], %[[S4]] :
module {
}

// e = 256: [V | 1] would take 264 columns, more than one MMA's N, so each
// (query head, row block) has four programs along y, each with 64 value
// columns and the ones column at 64 (the accumulators as at e = 64).
// WIDE: gpu.module @sympow_p2_d64_e256_hq2_h2_bf16_gnone_none_mma
// WIDE: nvvm.minctasm = 4 : i32, sympow.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_bytes = 0 : i64, grid_y = 8 : i64, tokens_per_block = 64 : i64}
// WIDE: sympow_tile.warpgroup_mma %{{.*}} {transposeB} : vector<1x1x4x2xbf16>, bf16, vector<1x9x2x2xf32>
// WIDE-NOT: vector<1x33x2x2xf32>
