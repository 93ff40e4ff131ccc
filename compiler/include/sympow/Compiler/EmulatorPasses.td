//===- EmulatorPasses.td - Lowering gpu.func kernels to CPU code for the emulator -*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_EMULATORPASSES_TD
#define SYMPOW_COMPILER_EMULATORPASSES_TD

include "mlir/Pass/PassBase.td"

#endif // SYMPOW_COMPILER_EMULATORPASSES_TD
