//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The few driver entry points the backend uses, resolved with dlsym. The
// types are declared here (ABI-compatible with cuda.h) so the runtime builds
// without the CUDA headers.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_CUDADRIVER_H
#define SYMPOW_RUNTIME_CUDADRIVER_H

#include "sympow/Support/Status.h"

#include <cstddef>

namespace sympow::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult kSuccess = 0;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: the opt-in a function
/// needs before it is launched with more than 48 KiB of dynamic shared
/// memory.
constexpr int kMaxDynamicSharedSizeBytes = 8;

/// Entry points, named after the versioned symbols libcuda exports.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Optional (null when the driver lacks them): timing with events.
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
};

/// Loads the driver once per process (SYMPOW_CUDA_DRIVER, else
/// libcuda.so.1) and resolves every entry point; the error says "no CUDA
/// driver found" when there is none.
Result<const Driver *> loadDriver();

/// Success, or an error naming the call and the driver's error, e.g.
/// "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (200): device kernel
/// image is invalid".
Status check(const Driver &driver, CUresult result, const char *call);

} // namespace sympow::runtime::cuda

#endif // SYMPOW_RUNTIME_CUDADRIVER_H
