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

#include <memory>

namespace sympow::runtime {

/// Images are ImageFormat::HostSharedObject (the bytes of a shared object)
/// or ImageFormat::EmulatorModule (`image` is a `const emu::Module *` that
/// outlives the backend). Its arch() is "emulator".
std::unique_ptr<Backend> createEmulatorBackend();

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_EMULATORBACKEND_H
