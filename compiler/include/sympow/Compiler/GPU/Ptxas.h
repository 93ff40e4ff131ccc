//===- Ptxas.h - Compile PTX with ptxas and read its resource usage -*- C++
//-*-===//

#ifndef SYMPOW_COMPILER_GPU_PTXAS_H
#define SYMPOW_COMPILER_GPU_PTXAS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sympow {

/// What `ptxas -v` says about one entry function.
struct PtxasUsage {
  std::string kernel;
  std::string arch;
  int64_t registers = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t stackBytes = 0;
  int64_t sharedBytes = 0;
};

/// Parses the `ptxas -v` log (one entry per compiled entry function).
std::vector<PtxasUsage> parsePtxasLog(llvm::StringRef log);

/// Runs `ptxas -v -arch=<arch> -o <cubinPath>` on `ptx`; the error carries
/// ptxas's own message.
llvm::Expected<std::vector<PtxasUsage>>
runPtxas(llvm::StringRef ptx, llvm::StringRef arch, llvm::StringRef cubinPath,
         llvm::StringRef ptxas = "/usr/local/cuda/bin/ptxas");

/// Tensor-core instructions in PTX: mma.sync / wgmma.mma_async lines.
int64_t countTensorCoreInstructions(llvm::StringRef ptx);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_PTXAS_H
