// Variants the generator refuses, with messages that say what is allowed.

// RUN: not sympow-opt %s --sympow-build-attention-kernel="p=3" 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: error: cannot build the attention kernel: p = 3 is not supported: p must be an even integer >= 2 and <= 32 (odd powers do not give nonnegative scores)

// RUN: not sympow-opt %s --sympow-build-attention-kernel="p=2 d=40" 2>&1 | FileCheck %s --check-prefix=DIM
// DIM: d = 40 is not supported: head dims must be multiples of 16 from 16 to 256

// RUN: not sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 e=512" 2>&1 | FileCheck %s --check-prefix=EDIM
// EDIM: e = 512 is not supported

// RUN: not sympow-opt %s --sympow-build-attention-kernel="hq=6 h=4" 2>&1 | FileCheck %s --check-prefix=GQA
// GQA: hq = 6, h = 4: the query heads must be a positive multiple of the key/value heads (GQA)

// RUN: not sympow-opt %s --sympow-build-attention-kernel="dtype=f32 path=mma" 2>&1 | FileCheck %s --check-prefix=F32MMA
// F32MMA: the tensor-core path needs bf16 or f16 inputs; f32 inputs use the scalar FMA path to keep full f32 accuracy

// RUN: not sympow-opt %s --sympow-build-attention-kernel="schedule=blend length=64 path=mma" 2>&1 | FileCheck %s --check-prefix=BLENDMMA
// BLENDMMA: schedule 'blend' rotates each (query, key) pair by its own angle; only the scalar path computes it

// RUN: not sympow-opt %s --sympow-build-attention-kernel="schedule=warped" 2>&1 | FileCheck %s --check-prefix=NOLEN
// NOLEN: schedule 'warped' needs its typical length L >= 1

// RUN: not sympow-opt %s --sympow-build-attention-kernel="schedule=uniform rotary-dims=66" 2>&1 | FileCheck %s --check-prefix=ROT
// ROT: rotary dims = 66 is not supported: it must be even and in [2, d = 64]

// RUN: not sympow-opt %s --sympow-build-attention-kernel="schedule=uniform rotary-base=-1" 2>&1 | FileCheck %s --check-prefix=BASE
// BASE: rotary base = -1 must be a finite number > 1

// RUN: not sympow-opt %s --sympow-build-attention-kernel="dtype=fp8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: unknown dtype 'fp8': expected one of bf16, f16, f32

// RUN: not sympow-opt %s --sympow-build-attention-kernel="gate=sometimes" 2>&1 | FileCheck %s --check-prefix=GATE
// GATE: error: unknown gate 'sometimes': expected one of none, head, data, both

// RUN: not sympow-opt %s --sympow-build-attention-kernel="schedule=alibi" 2>&1 | FileCheck %s --check-prefix=SCHED
// SCHED: error: unknown schedule 'alibi': expected one of none, uniform, learned, warped, blend

// RUN: not sympow-opt %s --sympow-build-attention-kernel="d=256 dtype=f32 block-tokens=64" 2>&1 | FileCheck %s --check-prefix=SMEM
// SMEM: the variant needs {{[0-9]+}} bytes of workgroup memory per block, more than the 48 KiB of static shared memory; use fewer block tokens

// RUN: not sympow-opt %s --sympow-build-attention-kernel="dtype=bf16 path=mma block-tokens=32" 2>&1 | FileCheck %s --check-prefix=BT
// BT: block tokens = 32: the tensor-core path takes blocks of 64 queries
// RUN: not sympow-opt %s --sympow-build-attention-kernel="d=32 dtype=f32 block-tokens=12" 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: block tokens = 12 gives 24 threads per block; the scalar path needs whole warps (a multiple of 32 threads, for its shuffles), at most 1024
module {
}
