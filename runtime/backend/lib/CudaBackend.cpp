//===- CudaBackend.cpp - Kernels on a GPU through the CUDA driver ---------===//

#include "sympow/Runtime/CudaBackend.h"

#include "CudaDriver.h"

#include "sympow/Support/GpuLimits.h"

#include <string>

using namespace sympow;
using namespace sympow::runtime;
using namespace sympow::runtime::cuda;

namespace {

class CudaBackend final : public Backend {
public:
  CudaBackend(const Driver &driver, CUdevice device, CUcontext context,
              std::string arch)
      : driver(driver), device(device), context(context),
        archName(std::move(arch)) {}
  ~CudaBackend() override { (void)driver.cuDevicePrimaryCtxRelease(device); }

  const char *name() const override { return "cuda"; }
  const std::string &arch() const override { return archName; }

  Result<ModuleHandle> loadModule(const void *image, size_t size,
                                  ImageFormat format) override {
    if (!image || size == 0)
      return Status::error("cannot load a kernel module from an empty image");
    if (Status s = makeCurrent(); s.isError())
      return s;
    // The driver reads PTX up to its terminating NUL.
    std::string ptx;
    if (format == ImageFormat::Ptx &&
        static_cast<const char *>(image)[size - 1] != '\0') {
      ptx.assign(static_cast<const char *>(image), size);
      image = ptx.c_str();
    }
    CUmodule module = nullptr;
    if (Status s = check(driver, driver.cuModuleLoadData(&module, image),
                         "cuModuleLoadData");
        s.isError())
      return s;
    return static_cast<ModuleHandle>(module);
  }

  Status unloadModule(ModuleHandle module) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver, driver.cuModuleUnload(static_cast<CUmodule>(module)),
                 "cuModuleUnload");
  }

  Result<KernelHandle> getKernel(ModuleHandle module,
                                 const char *kernelName) override {
    if (!module || !kernelName)
      return Status::error("getKernel needs a module and a kernel name");
    CUfunction function = nullptr;
    if (Status s =
            check(driver,
                  driver.cuModuleGetFunction(
                      &function, static_cast<CUmodule>(module), kernelName),
                  "cuModuleGetFunction");
        s.isError())
      return Status::error(s.message() + " (kernel '" + kernelName + "')");
    return static_cast<KernelHandle>(function);
  }

  Status launch(KernelHandle kernel, const LaunchConfig &c,
                void **args) override {
    if (!kernel)
      return Status::error("launch of a null kernel");
    if (Status s = makeCurrent(); s.isError())
      return s;
    // Past the static 48 KiB a function must opt in to its dynamic shared
    // memory (tile kernels whose arrays need more: docs/TileIR.md).
    if (c.dynamicSharedBytes > kStaticSharedBytes)
      if (Status s =
              check(driver,
                    driver.cuFuncSetAttribute(static_cast<CUfunction>(kernel),
                                              kMaxDynamicSharedSizeBytes,
                                              int(c.dynamicSharedBytes)),
                    "cuFuncSetAttribute");
          s.isError())
        return s;
    return check(
        driver,
        driver.cuLaunchKernel(static_cast<CUfunction>(kernel), c.grid.x,
                              c.grid.y, c.grid.z, c.block.x, c.block.y,
                              c.block.z, c.dynamicSharedBytes,
                              static_cast<CUstream>(c.stream), args, nullptr),
        "cuLaunchKernel");
  }

  /// CUDA events around the launch when the driver has them.
  Result<double> launchTimed(KernelHandle kernel, const LaunchConfig &c,
                             void **args) override {
    const cuda::Driver &d = driver;
    if (!d.cuEventCreate || !d.cuEventRecord || !d.cuEventSynchronize ||
        !d.cuEventElapsedTime || !d.cuEventDestroy)
      return Backend::launchTimed(kernel, c, args);
    if (Status s = makeCurrent(); s.isError())
      return s;
    cuda::CUevent start = nullptr, stop = nullptr;
    auto destroy = [&] {
      if (start)
        d.cuEventDestroy(start);
      if (stop)
        d.cuEventDestroy(stop);
    };
    auto stream = static_cast<cuda::CUstream>(c.stream);
    float ms = 0;
    Status s = check(d, d.cuEventCreate(&start, 0), "cuEventCreate");
    if (s.isOk())
      s = check(d, d.cuEventCreate(&stop, 0), "cuEventCreate");
    if (s.isOk())
      s = check(d, d.cuEventRecord(start, stream), "cuEventRecord");
    if (s.isOk())
      s = launch(kernel, c, args);
    if (s.isOk())
      s = check(d, d.cuEventRecord(stop, stream), "cuEventRecord");
    if (s.isOk())
      s = check(d, d.cuEventSynchronize(stop), "cuEventSynchronize");
    if (s.isOk())
      s = check(d, d.cuEventElapsedTime(&ms, start, stop),
                "cuEventElapsedTime");
    destroy();
    if (s.isError())
      return s;
    return double(ms) * 1e-3;
  }

  Result<DevicePtr> allocate(size_t bytes) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    CUdeviceptr ptr = 0;
    if (Status s = check(driver, driver.cuMemAlloc(&ptr, bytes), "cuMemAlloc");
        s.isError())
      return s;
    return static_cast<DevicePtr>(ptr);
  }

  Status release(DevicePtr ptr) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver, driver.cuMemFree(ptr), "cuMemFree");
  }

  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver, driver.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }

  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver, driver.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  }

  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes,
                      void *stream) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver,
                 driver.cuMemcpyDtoDAsync(dst, src, bytes,
                                          static_cast<CUstream>(stream)),
                 "cuMemcpyDtoDAsync");
  }

  Status fillZero(DevicePtr dst, size_t bytes, void *stream) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(
        driver,
        driver.cuMemsetD8Async(dst, 0, bytes, static_cast<CUstream>(stream)),
        "cuMemsetD8Async");
  }

  Status synchronize(void *stream) override {
    if (Status s = makeCurrent(); s.isError())
      return s;
    return check(driver,
                 driver.cuStreamSynchronize(static_cast<CUstream>(stream)),
                 "cuStreamSynchronize");
  }

private:
  /// Any thread may call the backend: bind the context to the caller.
  Status makeCurrent() {
    return check(driver, driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  const Driver &driver;
  CUdevice device;
  CUcontext context;
  std::string archName;
};

} // namespace

Result<std::unique_ptr<Backend>>
sympow::runtime::createCudaBackend(int ordinal) {
  Result<const Driver *> loaded = loadDriver();
  if (loaded.isError())
    return loaded.status();
  const Driver &driver = *loaded.value();
  if (Status s = check(driver, driver.cuInit(0), "cuInit"); s.isError())
    return s;
  int count = 0;
  if (Status s =
          check(driver, driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
      s.isError())
    return s;
  if (ordinal < 0 || ordinal >= count)
    return Status::error("CUDA device " + std::to_string(ordinal) +
                         " does not exist: " + std::to_string(count) +
                         " device(s) present");
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (Status s =
          check(driver, driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");
      s.isError())
    return s;
  if (Status s = check(
          driver,
          driver.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device),
          "cuDeviceGetAttribute");
      s.isError())
    return s;
  if (Status s = check(
          driver,
          driver.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device),
          "cuDeviceGetAttribute");
      s.isError())
    return s;
  CUcontext context = nullptr;
  if (Status s =
          check(driver, driver.cuDevicePrimaryCtxRetain(&context, device),
                "cuDevicePrimaryCtxRetain");
      s.isError())
    return s;
  std::string arch = "sm_" + std::to_string(major * 10 + minor);
  return std::unique_ptr<Backend>(
      new CudaBackend(driver, device, context, std::move(arch)));
}
