//===- CudaBackendTest.cpp - The cuda backend over a fake driver ----------===//
//
// ctest runs this binary three times: with SYMPOW_CUDA_DRIVER naming the
// fake driver (FakeCudaDriver.cpp), with it naming a library that does not
// exist, and with the fake driver reporting no device; each run filters to
// the tests of its situation.
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/CudaBackend.h"
#include "sympow/Runtime/KernelLibrary.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

using namespace sympow;
using namespace sympow::runtime;

static const char kCubin[] = "FAKECUBIN";
static const char kPtx[] = "// fake ptx";

TEST(NoDriver, SaysSoClearly) {
  Result<std::unique_ptr<Backend>> backend = createCudaBackend();
  ASSERT_TRUE(backend.isError());
  EXPECT_NE(backend.message().find("no CUDA driver found: cannot load"),
            std::string::npos)
      << backend.message();
}

TEST(NoDevice, ReportsTheDriverError) {
  Result<std::unique_ptr<Backend>> backend = createCudaBackend();
  ASSERT_TRUE(backend.isError());
  EXPECT_EQ(backend.message(), "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no "
                               "CUDA-capable device is detected");
}

TEST(FakeDriver, ReportsTheDeviceArchitecture) {
  Result<std::unique_ptr<Backend>> backend = createCudaBackend();
  ASSERT_TRUE(backend.isOk()) << backend.message();
  EXPECT_STREQ(backend.value()->name(), "cuda");
  EXPECT_EQ(backend.value()->arch(), "sm_90");
}

TEST(FakeDriver, RejectsADeviceThatDoesNotExist) {
  Result<std::unique_ptr<Backend>> backend = createCudaBackend(3);
  ASSERT_TRUE(backend.isError());
  EXPECT_EQ(backend.message(),
            "CUDA device 3 does not exist: 1 device(s) present");
}

TEST(FakeDriver, LoadsLaunchesAndCopies) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  Result<ModuleHandle> module =
      backend->loadModule(kCubin, sizeof(kCubin), ImageFormat::Cubin);
  ASSERT_TRUE(module.isOk()) << module.message();
  Result<KernelHandle> kernel = backend->getKernel(module.value(), "add_one");
  ASSERT_TRUE(kernel.isOk()) << kernel.message();

  float host[4] = {1, 2, 3, 4};
  Result<DevicePtr> buffer = backend->allocate(sizeof(host));
  ASSERT_TRUE(buffer.isOk());
  ASSERT_TRUE(backend->copyToDevice(buffer.value(), host, sizeof(host)).isOk());
  DevicePtr x = buffer.value();
  int64_t n = 4;
  void *args[] = {&x, &n};
  LaunchConfig config;
  config.grid = {1, 1, 1};
  config.block = {4, 1, 1};
  ASSERT_TRUE(backend->launch(kernel.value(), config, args).isOk());
  ASSERT_TRUE(backend->synchronize(nullptr).isOk());
  ASSERT_TRUE(backend->copyToHost(host, buffer.value(), sizeof(host)).isOk());
  EXPECT_EQ(host[0], 2);
  EXPECT_EQ(host[3], 5);

  // Device-side copies and fills are queued like launches.
  Result<DevicePtr> other = backend->allocate(sizeof(host));
  ASSERT_TRUE(other.isOk());
  ASSERT_TRUE(
      backend
          ->copyOnDevice(other.value(), buffer.value(), sizeof(host), nullptr)
          .isOk());
  ASSERT_TRUE(backend->fillZero(buffer.value(), sizeof(float), nullptr).isOk());
  float copied[4] = {}, filled[4] = {};
  ASSERT_TRUE(backend->copyToHost(copied, other.value(), sizeof(host)).isOk());
  ASSERT_TRUE(backend->copyToHost(filled, buffer.value(), sizeof(host)).isOk());
  EXPECT_EQ(copied[0], 2);
  EXPECT_EQ(copied[3], 5);
  EXPECT_EQ(filled[0], 0);
  EXPECT_EQ(filled[1], 3);
  EXPECT_TRUE(backend->release(other.value()).isOk());
  EXPECT_TRUE(backend->release(buffer.value()).isOk());
  EXPECT_TRUE(backend->unloadModule(module.value()).isOk());
}

/// The fake cubin's add_one, null if it does not load.
static KernelHandle addOne(Backend &backend) {
  Result<ModuleHandle> module =
      backend.loadModule(kCubin, sizeof(kCubin), ImageFormat::Cubin);
  if (module.isError())
    return nullptr;
  Result<KernelHandle> kernel = backend.getKernel(module.value(), "add_one");
  return kernel.isOk() ? kernel.value() : nullptr;
}

// Past 48 KiB of dynamic shared memory the backend opts the function in
// before the launch (the fake driver, like the real one, refuses the launch
// otherwise), and a size beyond the device's is the driver's error.
TEST(FakeDriver, OptsInToLargeDynamicSharedMemory) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  KernelHandle kernel = addOne(*backend);
  ASSERT_TRUE(kernel);
  float one = 1;
  Result<DevicePtr> buffer = backend->allocate(sizeof one);
  ASSERT_TRUE(buffer.isOk());
  DevicePtr x = buffer.value();
  ASSERT_TRUE(backend->copyToDevice(x, &one, sizeof one).isOk());
  int64_t n = 1;
  void *args[] = {&x, &n};
  LaunchConfig config;
  config.grid = config.block = {1, 1, 1};
  config.dynamicSharedBytes = 96 * 1024;
  Status launched = backend->launch(kernel, config, args);
  ASSERT_TRUE(launched.isOk()) << launched.message();
  ASSERT_TRUE(backend->copyToHost(&one, x, sizeof one).isOk());
  EXPECT_EQ(one, 2);

  config.dynamicSharedBytes = 300 * 1024;
  launched = backend->launch(kernel, config, args);
  ASSERT_TRUE(launched.isError());
  EXPECT_EQ(launched.message().rfind("cuFuncSetAttribute failed: ", 0), 0u)
      << launched.message();
  EXPECT_TRUE(backend->release(buffer.value()).isOk());
}

TEST(FakeDriver, NamesTheFailingCallAndError) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  const char garbage[] = "not a cubin";
  Result<ModuleHandle> module =
      backend->loadModule(garbage, sizeof(garbage), ImageFormat::Cubin);
  ASSERT_TRUE(module.isError());
  EXPECT_EQ(module.message(),
            "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (200): device "
            "kernel image is invalid");

  module = backend->loadModule(kCubin, sizeof(kCubin), ImageFormat::Cubin);
  Result<KernelHandle> kernel = backend->getKernel(module.value(), "missing");
  ASSERT_TRUE(kernel.isError());
  EXPECT_EQ(kernel.message(),
            "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500): named "
            "symbol not found (kernel 'missing')");
  EXPECT_TRUE(backend->launch(nullptr, LaunchConfig(), nullptr).isError());
  EXPECT_TRUE(backend->loadModule(nullptr, 0, ImageFormat::Cubin).isError());
}

TEST(FakeDriver, LibraryPicksTheDeviceCubinOverPtx) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  const char otherCubin[] = "other";
  KernelLibrary library(
      *backend,
      {{"sm_80", ImageFormat::Cubin, otherCubin, sizeof(otherCubin)},
       {"sm_80", ImageFormat::Ptx, kPtx, sizeof(kPtx)},
       {"sm_90a", ImageFormat::Cubin, kCubin, sizeof(kCubin)}},
      {{"add_one", {}}});
  const KernelImage *image = library.selectImage();
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->arch, "sm_90a");
  EXPECT_TRUE(library.kernel(0).isOk());
  Result<KernelHandle> outOfRange = library.kernel(1);
  ASSERT_TRUE(outOfRange.isError());
  EXPECT_EQ(outOfRange.message(),
            "kernel index 1 out of range: the library has 1 kernels");
}

TEST(FakeDriver, LibraryFallsBackToPtxAndLoadsOnceAcrossThreads) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  // PTX for sm_80 runs on sm_90; PTX for a newer architecture does not.
  const char newerPtx[] = "// fake ptx for sm_100";
  KernelLibrary library(
      *backend,
      {{"sm_100", ImageFormat::Ptx, newerPtx, sizeof(newerPtx)},
       {"sm_80", ImageFormat::Ptx, kPtx, sizeof(kPtx) - 1 /* no NUL */}},
      {{"add_one", {}}});
  ASSERT_NE(library.selectImage(), nullptr);
  EXPECT_EQ(library.selectImage()->arch, "sm_80");
  KernelHandle seen[8] = {};
  std::vector<std::thread> threads;
  for (KernelHandle &handle : seen)
    threads.emplace_back([&] { handle = library.kernel(0).value(); });
  for (std::thread &t : threads)
    t.join();
  for (KernelHandle handle : seen)
    EXPECT_EQ(handle, seen[0]);
}

TEST(FakeDriver, LibraryWithoutAFittingImageSaysWhatWasBuilt) {
  std::unique_ptr<Backend> backend = std::move(createCudaBackend().value());
  KernelLibrary library(*backend,
                        {{"sm_80", ImageFormat::Cubin, kCubin, sizeof(kCubin)}},
                        {{"add_one", {}}});
  Result<KernelHandle> kernel = library.kernel(0);
  ASSERT_TRUE(kernel.isError());
  EXPECT_EQ(kernel.message(), "no kernel image for sm_90 (built for: sm_80); "
                              "rebuild with --arch sm_90");
}
