//===- FakeCudaDriver.cpp - A stand-in libcuda for the backend's tests ----===//
//
// Exports the driver entry points the cuda backend resolves, with host
// memory as "device" memory and one kernel, `add_one(float *x, int64 n)`,
// run on the CPU. Modules are images that start with "FAKECUBIN" or, for
// PTX, "// fake ptx". FAKE_CUDA_NO_DEVICE=1 makes cuInit fail as on a
// machine whose driver sees no GPU. Only the backend's tests load it.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {

using CUresult = int;
enum : CUresult {
  kSuccess = 0,
  kInvalidValue = 1,
  kNoDevice = 100,
  kInvalidImage = 200,
  kNotFound = 500,
};

static int fakeContext, fakeModule, fakeFunction;

CUresult cuInit(unsigned) {
  const char *noDevice = std::getenv("FAKE_CUDA_NO_DEVICE");
  return noDevice && *noDevice == '1' ? kNoDevice : kSuccess;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  // Compute capability 9.0.
  *value = attribute == 75 ? 9 : 0;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int) {
  *context = &fakeContext;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxSetCurrent(void *context) {
  return context == &fakeContext ? kSuccess : kInvalidValue;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  const char *text = static_cast<const char *>(image);
  if (std::strncmp(text, "FAKECUBIN", 9) != 0 &&
      std::strncmp(text, "// fake ptx", 11) != 0)
    return kInvalidImage;
  *module = &fakeModule;
  return kSuccess;
}
CUresult cuModuleUnload(void *) { return kSuccess; }
CUresult cuModuleGetFunction(void **function, void *, const char *name) {
  if (std::strcmp(name, "add_one") != 0)
    return kNotFound;
  *function = &fakeFunction;
  return kSuccess;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned, unsigned,
                        unsigned bx, unsigned, unsigned, unsigned, void *,
                        void **params, void **) {
  if (function != &fakeFunction || !params)
    return kInvalidValue;
  float *x = *static_cast<float **>(params[0]);
  int64_t n = *static_cast<int64_t *>(params[1]);
  for (int64_t i = 0; i < n && i < int64_t(gx) * bx; ++i)
    x[i] += 1.0f;
  return kSuccess;
}
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  *ptr = reinterpret_cast<unsigned long long>(std::malloc(bytes));
  return *ptr ? kSuccess : kInvalidValue;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  std::free(reinterpret_cast<void *>(ptr));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  std::memcpy(dst, reinterpret_cast<void *>(src), n);
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) { return kSuccess; }
CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kNoDevice:
    *name = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case kInvalidImage:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return kSuccess;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  }
  return kInvalidValue;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case kNoDevice:
    *text = "no CUDA-capable device is detected";
    return kSuccess;
  case kInvalidImage:
    *text = "device kernel image is invalid";
    return kSuccess;
  case kNotFound:
    *text = "named symbol not found";
    return kSuccess;
  case kInvalidValue:
    *text = "invalid argument";
    return kSuccess;
  }
  return kInvalidValue;
}

} // extern "C"
