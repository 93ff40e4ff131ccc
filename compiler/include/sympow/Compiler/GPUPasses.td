//===- GPUPasses.td - Tiling into gpu.func kernels and NVVM/PTX/cubin emission -*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_GPUPASSES_TD
#define SYMPOW_COMPILER_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowBuildAttentionKernel
    : Pass<"sympow-build-attention-kernel", "::mlir::ModuleOp"> {
  let summary = "Add the attention-formulation kernel of one variant";
  let description = [{
    Appends `gpu.module @sympow_<variant>` holding one
    `gpu.func @attention kernel` for the variant given by the options,
    following docs/KernelABI.md: buffers q, k, v, [log_g], [log_gamma],
    [beta], y as `memref<?xT>`, then `i64` B and T; grid
    (ceil(T / tokens_per_block), Hq, B). A rotating 16-bit variant that the
    tile kernel takes reads q_rotated_halves and k_rotated_halves (what
    `rotate_qk` writes in a layer library) instead of q, k and beta: its
    arguments are the halves, v, [log_g], [log_gamma], y. Everything in the
    options is a
    compile-time constant of the kernel. An unsupported variant is an error
    that says what is allowed. See docs/GPU.md.

    ```sh
    sympow-opt --sympow-build-attention-kernel="p=2 d=64 dtype=bf16 gate=data schedule=learned" in.mlir
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::sympow::tile::TileDialect"
  ];
  let options = [
    Option<"power", "p", "int64_t", "2", "Even power p >= 2">,
    Option<"headDim", "d", "int64_t", "64", "Head dim d of q and k">,
    Option<"valueDim", "e", "int64_t", "0", "Head dim e of v and y (0: d)">,
    Option<"queryHeads", "hq", "int64_t", "1", "Query heads Hq">,
    Option<"kvHeads", "h", "int64_t", "0",
           "Key/value heads H (0: Hq); Hq % H == 0">,
    Option<"dtype", "dtype", "std::string", "\"bf16\"",
           "Element type of q, k, v, y: bf16, f16 or f32">,
    Option<"gate", "gate", "std::string", "\"none\"",
           "Gates: none, head (log_gamma), data (log_g) or both">,
    Option<"schedule", "schedule", "std::string", "\"none\"",
           "Angle schedule: none, uniform, learned, warped or blend">,
    Option<"rotaryDims", "rotary-dims", "int64_t", "0",
           "Rotated dims r (0: d)">,
    Option<"rotaryBase", "rotary-base", "double", "10000.0",
           "Base of the rotary rates">,
    Option<"rateScale", "rate-scale", "double", "1.0",
           "Factor on every rotary rate">,
    Option<"layout", "layout", "std::string", "\"interleaved\"",
           "Rotary pairs: interleaved or half">,
    Option<"length", "length", "int64_t", "0",
           "Typical length L of warped and blend">,
    Option<"scale", "scale", "double", "0.0", "Score scale (0: 1/sqrt(d))">,
    Option<"path", "path", "std::string", "\"auto\"",
           "auto, scalar (f32 FMA) or mma (tensor cores, bf16/f16)">,
    Option<"blockTokens", "block-tokens", "int64_t", "0",
           "Queries (= keys) per tile (0: chosen per variant)">,
    Option<"kernelName", "kernel-name", "std::string", "\"attention\"",
           "Name of the gpu.func">,
    Option<"moduleName", "module-name", "std::string", "\"\"",
           "Name of the gpu.module (empty: sympow_<variant>)">,
  ];
}

def SympowLowerBF16MmaSync : Pass<"sympow-lower-bf16-mma-sync"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    Upstream `convert-nvgpu-to-nvvm` refuses `nvgpu.mma.sync` on bf16
    operands ("failed to deduce operand PTX types"). This pass rewrites those
    ops to `nvvm.mma.sync` with `bf16` multiplicands, f32 accumulation, so
    that kernels can stay in the nvgpu dialect (which the emulator runs).
    Run it before `convert-nvgpu-to-nvvm`.
  }];
  let dependentDialects = [
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def SympowLowerFlushMath : Pass<"sympow-lower-flush-math"> {
  let summary = "Lower sympow_tile.exp2_ftz and log2_ftz to the NVPTX "
                "intrinsics";
  let description = [{
    The flushing base-2 exp and log of a distributed kernel (f32 scalars or
    vectors) become `llvm.nvvm.ex2.approx.ftz.f32` and
    `llvm.nvvm.lg2.approx.ftz.f`, element by element: one MUFU each in SASS,
    without the fixup for subnormals that `math.exp2` and `math.log2` take.
    The NVVM pipeline runs it before `convert-gpu-to-nvvm`; the emulator
    lowers the ops itself.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def SympowLowerBf16Fma : Pass<"sympow-lower-bf16-fma"> {
  let summary = "Lower math.fma on bf16 to llvm.intr.fma (fma.rn.bf16x2)";
  let description = [{
    `math.fma` on bf16 scalars or vectors of a distributed kernel becomes
    `llvm.intr.fma`, which NVPTX selects as `fma.rn.bf16x2` (one HFMA2.BF16
    for two elements) on sm_80 and later. Upstream `convert-gpu-to-nvvm`
    would call libdevice's `__nv_fmaf` on the operands extended to f32 and
    round the result back: the same value (an f32 fma of bf16 operands
    rounds once) in about four instructions an element. The NVVM pipeline
    runs it before `convert-gpu-to-nvvm`; the emulator's lowering of
    math.fma gives the same values.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SympowLowerWarpgroupMma : Pass<"sympow-lower-warpgroup-mma"> {
  let summary = "Lower sympow_tile.warpgroup_* ops: wgmma on sm_90a, mma.sync before";
  let description = [{
    The warpgroup MMA ops of a distributed kernel (TileWarpgroupOps.td)
    become `nvvm.wgmma.*` and `nvvm.fence.proxy`: a descriptor from its
    buffer's address in the workgroup window, the MMA on an `!llvm.struct`
    of the thread's accumulators, and the wait as inline PTX that takes and
    returns the accumulators, so that no read of them moves above it. For
    any other `chip` (no wgmma) each warp of a warpgroup computes its 16
    rows with ldmatrix through the descriptors' layouts and mma.sync
    m16n8k16, and the fences, commits and waits go: one kernel IR serves
    every target. The NVVM pipeline runs it before `convert-gpu-to-nvvm`
    with its chip. The emulator runs the ops as wgmma itself.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90a\"",
           "The target: sm_90a lowers to wgmma, others to mma.sync">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::gpu::GPUDialect"
  ];
}

def SympowLowerBulkCopies : Pass<"sympow-lower-bulk-copies"> {
  let summary = "Lower sympow_tile.mbarrier_* and bulk_copy: cp.async.bulk "
                "on sm_90a, cp.async before";
  let description = [{
    The thread-level mbarrier and bulk-copy ops (TileBulkCopyOps.td) become
    NVVM: `mbarrier.init`, `mbarrier.arrive[.expect_tx]` and a
    `try_wait.parity` loop on the barrier's workgroup address, and on sm_90a
    `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`
    (inline PTX with 32-bit shared addresses for the destination and the
    barrier). Before sm_90 (no bulk copies, no transaction counts) a copy
    is 16-byte `cp.async`s followed by one `cp.async.mbarrier.arrive` per
    thread (the barrier's pending count rises by one and falls when they
    land: no net change), arrivals drop their `expect_tx`, and the wait
    loops on `test_wait.parity`: one kernel IR serves both targets. A
    `sympow_tile.elected` region becomes `if (warp == 0) if (elect.sync)`
    on sm_90 (warp-uniform code, where ptxas issues each bulk copy as one
    UBLKCP) and `if (warp == 0)` before, whose lanes share each copy's
    16-byte pieces (lane l the pieces l, l + 32, ...) while its mbarrier
    ops and stores run on lane 0. Repeated copies become a loop that LLVM
    does not unroll on sm_90 (unrolled, ptxas held every copy's addresses
    in uniform registers at once), and the outer loop of each lane's
    cp.asyncs before. The NVVM pipeline runs it with its chip, before the
    nvgpu lowering; the emulator runs the ops itself.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90a\"",
           "The target: sm_90 and later use bulk copies, others cp.async">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect"
  ];
}

def SympowCheckGpuBinaries : Pass<"sympow-check-gpu-binaries",
                                  "::mlir::ModuleOp"> {
  let summary = "Fail if a gpu.module was not turned into a gpu.binary";
  let description = [{
    `gpu-module-to-binary` can report a failed toolkit call (for example a
    bad toolkit path) and still let the pipeline succeed. This pass fails
    when any `gpu.module` is left, or a `gpu.binary` object is empty, and,
    given `toolkit`, when that folder has no `bin/ptxas` (upstream then
    reports an error yet falls back to another ptxas and exits 0).
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "CUDA toolkit folder that must hold bin/ptxas (empty: no check)">,
  ];
}

#endif // SYMPOW_COMPILER_GPUPASSES_TD
