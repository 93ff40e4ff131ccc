//===- TilePasses.td - Tile kernels to gpu.func ------------*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_TILEPASSES_TD
#define SYMPOW_COMPILER_TILEPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowConvertTileToGPU : Pass<"sympow-convert-tile-to-gpu"> {
  let summary = "Lower tile kernels (sympow_tile) to gpu.func over threads";
  let description = [{
    Every `gpu.func` marked `sympow_tile.kernel` becomes a plain kernel in
    gpu, scf, memref, arith, math and vector (what the NVVM pipeline and the
    emulator run): a tile in the `#sympow_tile.blocked<threads = P,
    per_thread = R>` layout becomes each thread's R elements (a scalar for
    R = 1, else a `vector<R x T>`); `arith`/`math` on tiles apply to them;
    `scf.for` carries them; `sympow_tile.load`/`store` become guarded
    `memref.load`/`store` per element; `sympow_tile.program_id` becomes
    `gpu.block_id`, `sympow_tile.range` thread ids. The kernel attribute
    becomes the launch metadata (`sympow.launch`, docs/KernelABI.md).
    Matrix tiles (`#sympow_tile.mma`, `#sympow_tile.dot_operand`) become
    mma.sync fragments: `sympow_tile.dot` nvgpu.mma.sync, matrix loads of
    dot operands from workgroup memory nvgpu.ldmatrix; asynchronous copies
    nvgpu.device_async_copy (cp.async) and their waits;
    `sympow_tile.last_arrival` a compare-and-swap loop
    (memref.generic_atomic_rmw) between GPU-scope fences (llvm.fence).
    Tile ops outside a tile kernel are an error. See docs/TileIR.md.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

#endif // SYMPOW_COMPILER_TILEPASSES_TD
