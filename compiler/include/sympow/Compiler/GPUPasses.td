//===- GPUPasses.td - Tiling into gpu.func kernels and NVVM/PTX/cubin emission -*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_GPUPASSES_TD
#define SYMPOW_COMPILER_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

#endif // SYMPOW_COMPILER_GPUPASSES_TD
