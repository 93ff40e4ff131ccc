// PTX for sm_80 and sm_90a through sympow-gpu-to-binary: tensor-core
// instructions for bf16/f16, none for f32, libdevice linked (no __nv_
// externs left), the sm_90a target with PTX 8.0.

// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=bf16 gate=data schedule=learned" --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=BF16
// BF16: gpu.binary @sympow_p2_d64_e64_hq1_h1_bf16_gdata_learned_r64i_mma
// BF16-SAME: .target sm_80
// BF16-SAME: .entry attention(
// BF16-SAME: .maxntid 128, 1, 1
// BF16-SAME: .shared .align 16 .b8 __wg_attention_0
// BF16-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16-SAME: cp.async.cg.shared.global
// BF16-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// BF16-NOT: __nv_

// RUN: sympow-opt %s --sympow-build-attention-kernel="p=4 d=128 hq=4 h=2 dtype=f16 gate=both schedule=uniform" --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=F16
// Rotated d = e = 128 takes the tile kernel: 51 KB of arrays as dynamic
// shared memory, warpgroup MMAs.
// F16: .version 8.0
// F16-SAME: .target sm_90a
// F16-SAME: .shared .align 16 .b8 __dynamic_shmem__0;
// F16-SAME: wgmma.mma_async.sync.aligned.m64n
// F16-NOT: __nv_

// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=f32 schedule=blend length=512" --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=F32
// F32: .target sm_90a
// F32-NOT: mma.sync
// F32-SAME: fma.rn.f32
// F32-NOT: mma.sync

// cubins for both targets; the check pass fails when a binary is missing.
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=32 dtype=bf16" --sympow-gpu-to-binary="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=32 dtype=bf16" --sympow-gpu-to-binary="chip=sm_90a format=bin" | FileCheck %s --check-prefix=BIN
// BIN: gpu.binary @sympow_p2_d32_e32_hq1_h1_bf16_gnone_none_mma
// BIN-SAME: bin = "\7FELF

// A toolkit without ptxas is an error (upstream only warns and falls back).
// RUN: not sympow-opt %s --sympow-build-attention-kernel="p=2 d=32 dtype=f32" --sympow-gpu-to-binary="chip=sm_80 format=bin toolkit=%t.nonexistent" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// TOOLKIT: error: CUDA toolkit '{{.*}}nonexistent' has no executable bin/ptxas
module {
}
