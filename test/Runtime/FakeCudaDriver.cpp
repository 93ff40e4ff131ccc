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
// add_one's opt-in to dynamic shared memory past 48 KiB, as the real
// driver requires before such a launch.
static int maxDynamicShared = 48 * 1024;

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
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, up to an H100's.
  if (function != &fakeFunction || attribute != 8 || value < 0 ||
      value > 227 * 1024)
    return kInvalidValue;
  maxDynamicShared = value;
  return kSuccess;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned, unsigned,
                        unsigned bx, unsigned, unsigned, unsigned sharedBytes,
                        void *, void **params, void **) {
  if (function != &fakeFunction || !params ||
      int(sharedBytes) > maxDynamicShared)
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
CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src,
                              size_t n, void *) {
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  return kSuccess;
}
CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value, size_t n,
                         void *) {
  std::memset(reinterpret_cast<void *>(dst), value, n);
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) { return kSuccess; }
struct ErrorText {
  CUresult code;
  const char *name, *text;
};
static const ErrorText kErrors[] = {
    {kNoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
};
static const ErrorText *findError(CUresult error) {
  for (const ErrorText &e : kErrors)
    if (e.code == error)
      return &e;
  return nullptr;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  const ErrorText *e = findError(error);
  if (!e)
    return kInvalidValue;
  *name = e->name;
  return kSuccess;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  const ErrorText *e = findError(error);
  if (!e)
    return kInvalidValue;
  *text = e->text;
  return kSuccess;
}

} // extern "C"
