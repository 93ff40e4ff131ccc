//===- Passes.td - Passes of the sympow compiler -----------*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_PASSES_TD
#define SYMPOW_COMPILER_PASSES_TD

// One file per area; each defines its passes with `Pass<...>` records.
include "sympow/Compiler/TransformsPasses.td"
include "sympow/Compiler/GPUPasses.td"
include "sympow/Compiler/TilePasses.td"
include "sympow/Compiler/EmulatorPasses.td"
include "sympow/Compiler/DriverPasses.td"

#endif // SYMPOW_COMPILER_PASSES_TD
