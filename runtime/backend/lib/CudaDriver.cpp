//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

using namespace sympow;
using namespace sympow::runtime::cuda;

namespace {

/// The symbol each entry point is exported as (the _v2 ABI where there is
/// one, as cuda.h maps it).
struct Symbol {
  const char *name;
  void **slot;
};

Result<const Driver *> openDriver() {
  static Driver driver;
  const char *override = std::getenv("SYMPOW_CUDA_DRIVER");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return Status::error("no CUDA driver found: cannot load " + path + " (" +
                         (why ? why : "unknown reason") +
                         "); the cuda backend needs an NVIDIA GPU and its "
                         "driver, use the emulator or reference backend "
                         "elsewhere");
  }
  Symbol symbols[] = {
      {"cuInit", reinterpret_cast<void **>(&driver.cuInit)},
      {"cuDeviceGetCount", reinterpret_cast<void **>(&driver.cuDeviceGetCount)},
      {"cuDeviceGet", reinterpret_cast<void **>(&driver.cuDeviceGet)},
      {"cuDeviceGetAttribute",
       reinterpret_cast<void **>(&driver.cuDeviceGetAttribute)},
      {"cuDevicePrimaryCtxRetain",
       reinterpret_cast<void **>(&driver.cuDevicePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease_v2",
       reinterpret_cast<void **>(&driver.cuDevicePrimaryCtxRelease)},
      {"cuCtxSetCurrent", reinterpret_cast<void **>(&driver.cuCtxSetCurrent)},
      {"cuModuleLoadData", reinterpret_cast<void **>(&driver.cuModuleLoadData)},
      {"cuModuleUnload", reinterpret_cast<void **>(&driver.cuModuleUnload)},
      {"cuModuleGetFunction",
       reinterpret_cast<void **>(&driver.cuModuleGetFunction)},
      {"cuLaunchKernel", reinterpret_cast<void **>(&driver.cuLaunchKernel)},
      {"cuFuncSetAttribute",
       reinterpret_cast<void **>(&driver.cuFuncSetAttribute)},
      {"cuMemAlloc_v2", reinterpret_cast<void **>(&driver.cuMemAlloc)},
      {"cuMemFree_v2", reinterpret_cast<void **>(&driver.cuMemFree)},
      {"cuMemcpyHtoD_v2", reinterpret_cast<void **>(&driver.cuMemcpyHtoD)},
      {"cuMemcpyDtoH_v2", reinterpret_cast<void **>(&driver.cuMemcpyDtoH)},
      {"cuMemcpyDtoDAsync_v2",
       reinterpret_cast<void **>(&driver.cuMemcpyDtoDAsync)},
      {"cuMemsetD8Async", reinterpret_cast<void **>(&driver.cuMemsetD8Async)},
      {"cuStreamSynchronize",
       reinterpret_cast<void **>(&driver.cuStreamSynchronize)},
      {"cuGetErrorName", reinterpret_cast<void **>(&driver.cuGetErrorName)},
      {"cuGetErrorString", reinterpret_cast<void **>(&driver.cuGetErrorString)},
  };
  for (Symbol &symbol : symbols) {
    *symbol.slot = dlsym(library, symbol.name);
    if (!*symbol.slot)
      return Status::error(std::string("the CUDA driver ") + path + " lacks " +
                           symbol.name +
                           ": it is too old or not a CUDA driver");
  }
  Symbol optional[] = {
      {"cuEventCreate", reinterpret_cast<void **>(&driver.cuEventCreate)},
      {"cuEventRecord", reinterpret_cast<void **>(&driver.cuEventRecord)},
      {"cuEventSynchronize",
       reinterpret_cast<void **>(&driver.cuEventSynchronize)},
      {"cuEventElapsedTime",
       reinterpret_cast<void **>(&driver.cuEventElapsedTime)},
      {"cuEventDestroy_v2", reinterpret_cast<void **>(&driver.cuEventDestroy)},
  };
  for (Symbol &symbol : optional)
    *symbol.slot = dlsym(library, symbol.name);
  return static_cast<const Driver *>(&driver);
}

} // namespace

Result<const Driver *> sympow::runtime::cuda::loadDriver() {
  // Loaded once; every later call sees the same outcome.
  static std::once_flag once;
  static std::optional<Result<const Driver *>> loaded;
  std::call_once(once, [] { loaded.emplace(openDriver()); });
  return *loaded;
}

Status sympow::runtime::cuda::check(const Driver &driver, CUresult result,
                                    const char *call) {
  if (result == kSuccess)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName(result, &name) != kSuccess || !name)
    name = "unknown CUDA error";
  if (driver.cuGetErrorString(result, &text) != kSuccess || !text)
    text = "no description";
  return Status::error(std::string(call) + " failed: " + name + " (" +
                       std::to_string(result) + "): " + text);
}
