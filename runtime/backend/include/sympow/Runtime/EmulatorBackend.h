//===- EmulatorBackend.h - Kernels on the CPU emulator ----------*- C++ -*-===//
//
// The emulator behind the Backend interface: device memory is host memory,
// launches run the kernels' host code with CUDA semantics (runtime/emulator)
// and return when done; every out-of-bounds access, race or divergent
// barrier the emulator reports makes the launch fail with its report.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_EMULATORBACKEND_H
#define SYMPOW_RUNTIME_EMULATORBACKEND_H

#include "sympow/Runtime/Backend.h"
#include "sympow/Support/BlockProfile.h"
#include "sympow/Support/KernelCounts.h"

#include <memory>
#include <string>
#include <vector>

namespace sympow::runtime {

/// Whether an emulator backend's launches count what they do (the
/// counters of sympow/Support/KernelCounts.h, for the GPU model): callers
/// that only want results (the C API, numeric checks) skip their cost,
/// about a fifth of the emulator's time with sectors and wavefronts.
/// Profile: counts, and per counted MLIR block its runs and arithmetic
/// (EmulatorLaunch::profile).
enum class EmulatorCounting { Off, On, Profile };

/// Images are ImageFormat::HostSharedObject (the bytes of a shared object)
/// or ImageFormat::EmulatorModule (`image` is a `const emu::Module *` that
/// outlives the backend). Its arch() is "emulator".
std::unique_ptr<Backend>
createEmulatorBackend(EmulatorCounting counting = EmulatorCounting::On);

/// One launch on an emulator backend and what it did (the emulator's
/// counters, sympow/Support/KernelCounts.h; only the launch's shape with
/// EmulatorCounting::Off).
struct EmulatorLaunch {
  std::string kernel; // the gpu.func name
  LaunchCounts counts;
  std::vector<BlockProfile> profile; // EmulatorCounting::Profile
};

/// The launches `backend` ran since the last call, in launch order, and
/// forgets them. Empty when `backend` is not an emulator backend.
std::vector<EmulatorLaunch> takeEmulatorLaunches(Backend &backend);

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_EMULATORBACKEND_H
