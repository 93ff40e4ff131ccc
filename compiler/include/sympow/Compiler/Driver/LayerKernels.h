//===- LayerKernels.h - A layer's kernels, compiled for a backend -*- C++
//-*-===//
//
// The step between a layer's description and the runtime: which kernels its
// formulation needs (the generators in compiler/lib/GPU), compiled for the
// emulator (host code) or for CUDA (cubin per architecture, plus PTX), with
// the launch metadata the runtime's KernelLibrary takes. Compiled code is
// cached on disk, keyed by a hash of the kernels' IR and the target, so a
// changed compiler never reuses stale code.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_DRIVER_LAYERKERNELS_H
#define SYMPOW_COMPILER_DRIVER_LAYERKERNELS_H

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/GPU/Ptxas.h"
#include "sympow/Runtime/Layer.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace sympow {

namespace emu {
class Module;
} // namespace emu
class EmulatorJIT;

/// One layer variant in one formulation.
struct LayerKernelRequest {
  AttentionKernelSpec spec;
  runtime::Formulation formulation = runtime::Formulation::Attention;
  int64_t chunk = 0; // chunked only
};

/// A variant as sympow-aot takes it: the kernel spec's keys (see
/// parseAttentionVariant) plus `formulation=all|attention|chunked|recurrent`
/// (default all: every formulation the variant admits; warped and blend
/// have only attention) and `chunk=C` (default: defaultChunk). The spec is
/// checked (verifyKernelVariant) before the default chunk is chosen.
struct LayerVariantRequest {
  AttentionKernelSpec spec;
  std::vector<LayerKernelRequest> requests;
};
llvm::Expected<LayerVariantRequest> parseLayerVariant(llvm::StringRef text);

/// Sequence length the default chunk is chosen for.
inline constexpr int64_t kDefaultChunkTokens = 16384;

/// The chunk a variant gets when none is asked for: of chunkCandidates, the
/// one whose layer the calibrated H100 model predicts fastest for one
/// sequence of kDefaultChunkTokens tokens (docs/Performance.md).
int64_t defaultChunk(const AttentionKernelSpec &spec);

/// The runtime's description of the request.
runtime::LayerVariant layerVariant(const LayerKernelRequest &request);

/// Whether the generators can build the request; the message names the
/// problem and what is allowed.
llvm::Error verifyLayerKernels(const LayerKernelRequest &request);

/// Adds the request's kernels to `module`, in launch order.
void buildLayerKernels(mlir::OpBuilder &builder, mlir::gpu::GPUModuleOp module,
                       const LayerKernelRequest &request);

/// A module holding `gpu.module @kernels` with the request's kernels.
mlir::OwningOpRef<mlir::ModuleOp>
buildLayerKernelModule(mlir::MLIRContext &context,
                       const LayerKernelRequest &request);

/// Each kernel's launch, read from its `sympow.launch` metadata.
std::vector<runtime::KernelInfo> kernelInfos(mlir::ModuleOp module,
                                             const runtime::LayerVariant &v);

enum class KernelTarget {
  EmulatorJIT,    // host code compiled in process (tests)
  EmulatorShared, // host code as a shared object, cached on disk
  Cuda,           // cubin per architecture and PTX, cached on disk
};

/// Compiled kernels and the images a KernelLibrary loads.
class CompiledLayerKernels {
public:
  ~CompiledLayerKernels();
  const std::vector<runtime::KernelImage> &images() const { return imageList; }
  const std::vector<runtime::KernelInfo> &infos() const { return infoList; }
  /// Whether every image came from the on-disk cache.
  bool fromCache() const { return cached; }

private:
  friend llvm::Expected<std::unique_ptr<CompiledLayerKernels>>
  compileLayerKernels(const LayerKernelRequest &, KernelTarget,
                      const std::vector<std::string> &, const std::string &);
  std::vector<runtime::KernelImage> imageList;
  std::vector<runtime::KernelInfo> infoList;
  std::vector<std::unique_ptr<std::string>> storage; // image bytes
  std::unique_ptr<EmulatorJIT> jit;
  bool cached = false;
};

/// Compiles the request for `target`; `archs` lists the CUDA architectures
/// ("sm_80", "sm_90a"). An empty `cacheDir` disables the cache.
llvm::Expected<std::unique_ptr<CompiledLayerKernels>>
compileLayerKernels(const LayerKernelRequest &request, KernelTarget target,
                    const std::vector<std::string> &archs,
                    const std::string &cacheDir);

/// What ptxas says about each kernel of the request compiled for `arch`
/// (registers, spills, shared memory): the resources the GPU model takes.
llvm::Expected<std::vector<PtxasUsage>>
kernelResources(const LayerKernelRequest &request, llvm::StringRef arch);

/// Identifies the compiler that runs (its executable's path, size and
/// time): a rebuilt compiler never reuses what an older one cached.
const std::string &compilerFingerprint();

/// $SYMPOW_CACHE_DIR, else $XDG_CACHE_HOME/sympow, else ~/.cache/sympow.
std::string defaultKernelCacheDir();

} // namespace sympow

#endif // SYMPOW_COMPILER_DRIVER_LAYERKERNELS_H
