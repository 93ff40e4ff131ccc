//===- AssembleKernels.h - Kernels to PTX and cubin without spills -*- C++
//-*-===//
//
// A kernel's occupancy floor (nvvm.minctasm, the programs per SM its split
// was designed for) caps ptxas' registers. Where ptxas cannot meet a floor
// without spilling (before sm_90a the warpgroup MMAs become mma.sync,
// whose B fragments take registers that wgmma reads from shared memory),
// the kernel is built again for one program per SM fewer: the library
// never ships spills, and the report says which floor was kept.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_ASSEMBLEKERNELS_H
#define SYMPOW_COMPILER_GPU_ASSEMBLEKERNELS_H

#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/GPU/Ptxas.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sympow {

/// A kernel built below the occupancy floor its generator asked for.
struct RelaxedFloor {
  std::string kernel;
  int32_t requested = 1, built = 1;
};

struct AssembledKernels {
  std::string ptx;
  std::vector<PtxasUsage> usage;
  std::vector<RelaxedFloor> relaxed;
  /// The module after the NVVM pipeline (only when asked for).
  std::string nvvm;

  /// The floor `kernel` was built for, or 0 where it was not relaxed.
  int32_t relaxedFrom(llvm::StringRef kernel) const;
};

/// Lowers a clone of `module` (one gpu.module of kernels) for options.chip,
/// assembles its PTX with ptxas into `cubinPath`, and, while a kernel spills
/// at a floor above 1, lowers and assembles again with that kernel's floor
/// one lower. `keepNvvm` keeps the last NVVM stage's text.
llvm::Expected<AssembledKernels>
assembleKernels(mlir::ModuleOp module, const GpuTargetOptions &options,
                llvm::StringRef cubinPath,
                llvm::StringRef ptxas = "/usr/local/cuda/bin/ptxas",
                bool keepNvvm = false);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_ASSEMBLEKERNELS_H
