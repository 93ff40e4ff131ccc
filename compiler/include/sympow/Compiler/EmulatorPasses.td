//===- EmulatorPasses.td - Lowering gpu.func kernels to CPU code for the emulator -*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_EMULATORPASSES_TD
#define SYMPOW_COMPILER_EMULATORPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowGPUToEmulator
    : Pass<"sympow-gpu-to-emulator", "::mlir::ModuleOp"> {
  let summary = "Turn gpu.func kernels into host functions for the CPU emulator";
  let description = [{
    Rewrites every `gpu.module` into host `func.func`s that the emulator
    runtime (runtime/emulator) runs once per GPU thread, each thread a fiber:

    - `gpu.thread_id`, `block_id`, `block_dim`, `grid_dim`, `global_id`,
      `lane_id`, `subgroup_id`, `num_subgroups`, `subgroup_size` become
      calls to `__sympow_emu_query`;
    - `gpu.barrier` calls the runtime's block barrier;
    - workgroup memory (workgroup attributions, `memref.alloc` and
      `memref.global` in the workgroup address space,
      `gpu.dynamic_shared_memory`) becomes views of two `memref<?xi8>`
      arguments appended to each kernel (static, then dynamic), which the
      runtime allocates per block; private attributions become `alloca`s;
    - every `memref.load`/`store`, `vector.load`/`store` and
      `memref.atomic_rmw` first calls `__sympow_emu_access` with the
      address, the byte count and the extent of the allocation it derives
      from, so the runtime reports out-of-bounds accesses and races on
      workgroup memory;
    - `gpu.shuffle`, `nvgpu.ldmatrix` and `nvgpu.mma.sync` become warp
      collectives in the runtime (PTX ISA fragment layouts);
      `nvgpu.device_async_copy`, `device_async_create_group` and
      `device_async_wait` become cp.async emulation with group bookkeeping;
    - `gpu.subgroup_reduce` and `gpu.all_reduce` are first lowered to
      shuffles (and workgroup memory and barriers) by upstream's patterns.

    Kernels and device functions move to the top-level module as
    `<gpu.module>__<name>`; the module gets `sympow_emu.kernels` (symbol,
    qualified name and static workgroup bytes of each kernel) for
    `sympow-emulator-packed-entries`. Memory-space attributes are dropped
    at the end. An op the emulator cannot run (wgmma, TMA, nvvm intrinsics,
    gpu.printf, ...) is an error naming it. See docs/Emulator.md.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
  let options = [
    Option<"checkAccesses", "check-accesses", "bool", "true",
           "Instrument memory accesses (bounds and race checks)">,
  ];
}

def SympowEmulatorPackedEntries
    : Pass<"sympow-emulator-packed-entries", "::mlir::ModuleOp"> {
  let summary = "Add packed entry points and the manifest to a lowered module";
  let description = [{
    Runs on the LLVM dialect after `sympow-gpu-to-emulator` and the CPU
    lowering. For each kernel listed in `sympow_emu.kernels` it adds
    `llvm.func @<kernel>.packed(%args: !llvm.ptr)` which loads each
    parameter through `args[i]` (one pointer per LLVM parameter, memref
    descriptors expanded as cuLaunchKernel takes them) and calls the kernel,
    and the global string `__sympow_emu_manifest` the runtime reads to find
    the kernels. Calls into the runtime become indirect calls through
    `__sympow_emu_runtime`, a table the runtime fills when it loads the
    module, and `__truncsfbf2` is defined (weak) for hosts whose libgcc
    lacks it. The same object then works JIT-compiled or as a shared
    library with no symbol from the loading program.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // SYMPOW_COMPILER_EMULATORPASSES_TD
