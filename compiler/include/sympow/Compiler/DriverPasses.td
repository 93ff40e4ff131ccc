//===- DriverPasses.td - From layers to their kernels -----*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_DRIVERPASSES_TD
#define SYMPOW_COMPILER_DRIVERPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowLayerToKernels : Pass<"sympow-layer-to-kernels",
                                "::mlir::ModuleOp"> {
  let summary = "Generate the GPU kernels of every sympow.layer";
  let description = [{
    For each `sympow.layer` with a formulation (run
    `--sympow-select-formulation` first, or write one), appends
    `gpu.module @sympow_<variant>_<formulation>` with the formulation's
    kernels (docs/KernelABI.md: `attention`; `recurrent`; `chunk_counts`,
    `chunk_states`, `chunk_scan`, `chunk_output`), specialised on p, d, e,
    the head counts, the dtype, the gates and the rotary schedule, and
    records them on the layer as `sympow.kernels = @module`. The host side of
    a call is the runtime's `launchLayer`. The kernels' IR lowers to NVVM,
    PTX and cubin (`sympow-gpu-to-binary`) or to host code for the emulator.

    ```sh
    sympow-opt in.mlir --sympow-select-formulation --sympow-layer-to-kernels
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::sympow::tile::TileDialect"
  ];
}

#endif // SYMPOW_COMPILER_DRIVERPASSES_TD
