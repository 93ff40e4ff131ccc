//===- KernelLibrary.h - Kernel images loaded once, on demand ---*- C++ -*-===//
//
// A set of images of one kernel module (a cubin per architecture, PTX for
// forward compatibility). The module is loaded into the backend the first
// time a kernel is asked for, once, whichever thread asks; kernel handles are
// resolved then and kept, so launches look nothing up.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_KERNELLIBRARY_H
#define SYMPOW_RUNTIME_KERNELLIBRARY_H

#include "sympow/Runtime/Backend.h"

#include <mutex>
#include <string>
#include <vector>

namespace sympow::runtime {

/// How a kernel is launched, from its `sympow.launch` metadata
/// (docs/KernelABI.md): grid (x, gridY, B) where x is blocksX when set,
/// else ceil(T / tokensPerBlock), else 1.
struct KernelLaunch {
  Dim3 block;
  int64_t tokensPerBlock = 0;
  int64_t gridY = 1;
  uint32_t dynamicSharedBytes = 0;
  /// A grid x that does not depend on T (0: none).
  int64_t blocksX = 0;

  /// The grid for B sequences of T tokens.
  Dim3 grid(int64_t B, int64_t T) const {
    int64_t x = blocksX          ? blocksX
                : tokensPerBlock ? (T + tokensPerBlock - 1) / tokensPerBlock
                                 : 1;
    return {static_cast<uint32_t>(x), static_cast<uint32_t>(gridY),
            static_cast<uint32_t>(B)};
  }
};

struct KernelInfo {
  std::string name;
  KernelLaunch launch;
};

struct KernelImage {
  std::string arch; // "sm_80", "sm_90a"; for PTX the oldest it runs on
  ImageFormat format;
  const void *data;
  size_t size;
};

class KernelLibrary {
public:
  KernelLibrary(Backend &backend, std::vector<KernelImage> images,
                std::vector<KernelInfo> kernels);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  /// The handle of kernel `index` (in `kernels` order), loading the module
  /// on first use. Thread-safe.
  Result<KernelHandle> kernel(size_t index);

  size_t size() const { return infos.size(); }
  const KernelInfo &info(size_t index) const { return infos[index]; }
  /// Grid and block of kernel `index` for B sequences of T tokens.
  LaunchConfig launchConfig(size_t index, int64_t B, int64_t T,
                            void *stream) const;

  Backend &getBackend() { return backend; }

  /// The image the backend's architecture runs: its own cubin (sm_90 runs
  /// sm_90a), else PTX; null if none fits.
  const KernelImage *selectImage() const;

private:
  Status load();

  Backend &backend;
  std::vector<KernelImage> images;
  std::vector<KernelInfo> infos;
  std::once_flag once;
  Status loadStatus;
  ModuleHandle module = nullptr;
  std::vector<KernelHandle> handles;
};

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_KERNELLIBRARY_H
