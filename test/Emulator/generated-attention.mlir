// Kernels from the GPU code generator run on the emulator with every check
// on: no race, no out-of-bounds access, no divergence. With v = 1 every
// output is 1 whatever the scores (y is a weighted mean of the v rows).
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=16 dtype=f32 path=scalar" \
// RUN:   | sympow-emulate - --kernel attention --grid 2,1,1 --block 64 \
// RUN:       --arg f32:1024=0.1 --arg f32:1024=0.2 --arg f32:1024=1 --arg f32:1024 \
// RUN:       --arg i64=1 --arg i64=64 --print | FileCheck %s --check-prefix=SCALAR
// SCALAR: emulator: ok
// SCALAR: arg3 = [1, 1, 1, 1, 1, 1,
// The rotating tile kernel reads q and k as rotate_qk leaves them: hi + lo
// halves, 2 x 64 columns a token.
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=64 dtype=bf16 path=mma gate=data schedule=learned" \
// RUN:   | sympow-emulate - --kernel attention --grid 2,1,1 --block 128 \
// RUN:       --arg bf16:16384=0.01 --arg bf16:16384=0.02 --arg bf16:8192=1 \
// RUN:       --arg f32:128=-0.01 --arg bf16:8192 \
// RUN:       --arg i64=1 --arg i64=128 --print | FileCheck %s --check-prefix=MMA
// MMA: emulator: ok
// MMA: arg4 = [1, 1, 1, 1, 1, 1,
// A block size other than the one the kernel was built for is refused.
// RUN: sympow-opt %s --sympow-build-attention-kernel="p=2 d=16 dtype=f32 path=scalar" \
// RUN:   | not sympow-emulate - --kernel attention --grid 2,1,1 --block 32 \
// RUN:       --arg f32:1024 --arg f32:1024 --arg f32:1024 --arg f32:1024 \
// RUN:       --arg i64=1 --arg i64=64 | FileCheck %s --check-prefix=BLOCK
// BLOCK: emulator: invalid launch of kernel 'attention': block (32, 1, 1) differs from the (64, 1, 1) the kernel was built for (known_block_size)

module {
}
