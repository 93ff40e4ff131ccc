//===- FakeTimedCudaDriver.cpp - A stand-in libcuda for sympow-bench ------===//
//
// Lets `sympow-bench --backend cuda` run its whole timing path on a machine
// without a GPU (check_sympow_bench_cuda.py). An sm_90 device with host
// memory as device memory; any module loads, any kernel name resolves, and
// a launch computes nothing but advances a fake device clock by 1 us per
// block of its grid, which CUDA events read: a kernel's "measured" time is
// exactly its number of blocks in microseconds. With FAKE_CUDA_LOG set,
// every copy to the device, large fill (>= 64 MB: the L2 flush) and launch
// is appended to that file, one line each, so the test can check where the
// flush happens. Fills that large are not written (nothing reads them).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>

extern "C" {

using CUresult = int;
enum : CUresult {
  kSuccess = 0,
  kInvalidValue = 1,
  kNoDevice = 100,
  kNotReady = 600,
};

namespace {
int fakeContext, fakeModule;
std::deque<std::string> functions; // a kernel handle points at its name
double clockMs = 0;                // the fake device's clock
struct Event {
  double ms = 0;
  bool recorded = false;
};

void log(const std::string &line) {
  const char *path = std::getenv("FAKE_CUDA_LOG");
  if (!path || !*path)
    return;
  if (FILE *f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}
} // namespace

CUresult cuInit(unsigned) { return kSuccess; }
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
  if (!image)
    return kInvalidValue;
  *module = &fakeModule;
  return kSuccess;
}
CUresult cuModuleUnload(void *) { return kSuccess; }
CUresult cuModuleGetFunction(void **function, void *, const char *name) {
  functions.emplace_back(name);
  *function = &functions.back();
  return kSuccess;
}
CUresult cuFuncSetAttribute(void *, int, int) { return kSuccess; }
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned, unsigned, unsigned, unsigned, void *,
                        void **params, void **) {
  if (!function || !params)
    return kInvalidValue;
  clockMs += double(gx) * gy * gz * 1e-3;
  log("launch " + *static_cast<std::string *>(function) + " " +
      std::to_string(uint64_t(gx) * gy * gz));
  return kSuccess;
}
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
  *ptr = reinterpret_cast<unsigned long long>(std::malloc(bytes ? bytes : 1));
  return *ptr ? kSuccess : kInvalidValue;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  std::free(reinterpret_cast<void *>(ptr));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  log("htod " + std::to_string(n));
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
  if (n >= (size_t(64) << 20)) {
    log("fill " + std::to_string(n));
    return kSuccess;
  }
  std::memset(reinterpret_cast<void *>(dst), value, n);
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) { return kSuccess; }

CUresult cuEventCreate(void **event, unsigned) {
  *event = new Event;
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *) {
  auto *e = static_cast<Event *>(event);
  e->ms = clockMs;
  e->recorded = true;
  return kSuccess;
}
CUresult cuEventSynchronize(void *event) {
  return static_cast<Event *>(event)->recorded ? kSuccess : kNotReady;
}
CUresult cuEventElapsedTime(float *ms, void *start, void *stop) {
  auto *a = static_cast<Event *>(start), *b = static_cast<Event *>(stop);
  if (!a->recorded || !b->recorded)
    return kNotReady;
  *ms = float(b->ms - a->ms);
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  delete static_cast<Event *>(event);
  return kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == kNoDevice ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_FAKE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == kNoDevice ? "no CUDA-capable device is detected"
                             : "an error of the fake driver";
  return kSuccess;
}

} // extern "C"
