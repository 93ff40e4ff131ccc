//===- Backend.h - Where generated kernels run ------------------*- C++ -*-===//
//
// One interface for every place a generated kernel can run: a GPU through
// the CUDA driver, or the CPU emulator. A backend loads kernel images, finds
// kernels by name and launches them with CUDA's launch parameters; kernel
// arguments follow docs/KernelABI.md.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_BACKEND_H
#define SYMPOW_RUNTIME_BACKEND_H

#include "sympow/Support/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace sympow::runtime {

/// What a kernel image holds. The emulator's images are host code: a shared
/// object built from the lowered kernels, or (in process) a pointer to an
/// already loaded sympow::emu::Module, e.g. a JIT's.
enum class ImageFormat { Cubin, Fatbin, Ptx, HostSharedObject, EmulatorModule };

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  /// The backend's stream (a CUstream for cuda); null is the default stream.
  void *stream = nullptr;
};

/// Opaque handles owned by the backend that made them.
using ModuleHandle = void *;
using KernelHandle = void *;
/// A device address (CUdeviceptr for cuda, a host address for the emulator).
using DevicePtr = uint64_t;

class Backend {
public:
  virtual ~Backend() = default;

  /// "cuda" or "emulator".
  virtual const char *name() const = 0;
  /// The architecture kernels must be built for, e.g. "sm_80".
  virtual const std::string &arch() const = 0;

  virtual Result<ModuleHandle> loadModule(const void *image, size_t size,
                                          ImageFormat format) = 0;
  virtual Status unloadModule(ModuleHandle module) = 0;
  virtual Result<KernelHandle> getKernel(ModuleHandle module,
                                         const char *name) = 0;

  /// `args[i]` points at the i-th kernel parameter (CUDA's kernelParams).
  /// Allocates nothing.
  virtual Status launch(KernelHandle kernel, const LaunchConfig &config,
                        void **args) = 0;

  virtual Result<DevicePtr> allocate(size_t bytes) = 0;
  virtual Status release(DevicePtr ptr) = 0;
  virtual Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  /// Queued on `stream`, like launches.
  virtual Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes,
                              void *stream) = 0;
  virtual Status fillZero(DevicePtr dst, size_t bytes, void *stream) = 0;
  /// Waits for the work queued on `stream`.
  virtual Status synchronize(void *stream) = 0;

  /// Launches like launch(), waits for the kernel and returns the seconds
  /// it ran on the device: CUDA events on the cuda backend; here, for
  /// backends without a device clock, the host's time around a synchronous
  /// launch.
  virtual Result<double> launchTimed(KernelHandle kernel,
                                     const LaunchConfig &config, void **args);
};

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_BACKEND_H
