//===- Context.h - What a sympow_context holds ------------------*- C++ -*-===//

#ifndef SYMPOW_CAPI_CONTEXT_H
#define SYMPOW_CAPI_CONTEXT_H

#include "sympow_kernels_registry.h"

#include "sympow/Runtime/KernelLibrary.h"

#include <memory>
#include <string>
#include <vector>

/// A backend and, per registry entry, its kernels: loaded on first use,
/// then shared by every thread.
struct sympow_context {
  std::unique_ptr<sympow::runtime::Backend> backend;
  const sympow_registry *registry = nullptr;
  std::vector<std::unique_ptr<sympow::runtime::KernelLibrary>> libraries;
};

namespace sympow::capi {

/// Records `message` as the calling thread's last error; returns `code`.
sympow_status fail(sympow_status code, const std::string &message);
/// Clears the calling thread's last error; returns SYMPOW_SUCCESS.
sympow_status succeed();

/// A context on `backend` holding the kernels of `registry`.
std::unique_ptr<sympow_context>
makeContext(std::unique_ptr<runtime::Backend> backend,
            const sympow_registry &registry);

} // namespace sympow::capi

#endif // SYMPOW_CAPI_CONTEXT_H
