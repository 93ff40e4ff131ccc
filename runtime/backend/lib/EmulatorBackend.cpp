//===- EmulatorBackend.cpp - Kernels on the CPU emulator ------------------===//

#include "sympow/Runtime/EmulatorBackend.h"

#include "sympow/Emulator/Emulator.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

using namespace sympow;
using namespace sympow::runtime;

namespace {

class EmulatorBackend final : public Backend {
public:
  explicit EmulatorBackend(EmulatorCounting counting) : counting(counting) {}
  const char *name() const override { return "emulator"; }
  const std::string &arch() const override { return archName; }

  Result<ModuleHandle> loadModule(const void *image, size_t size,
                                  ImageFormat format) override {
    if (!image)
      return Status::error("cannot load a kernel module from a null image");
    if (format == ImageFormat::EmulatorModule)
      return const_cast<void *>(image);
    if (format != ImageFormat::HostSharedObject)
      return Status::error("the emulator runs host code: cubin, fatbin and "
                           "PTX images are for the cuda backend");
    std::string error;
    std::unique_ptr<emu::Module> module =
        emu::Module::loadSharedObjectImage(image, size, error);
    if (!module)
      return Status::error("cannot load the emulator kernels: " + error);
    std::lock_guard<std::mutex> lock(mutex);
    owned.push_back(std::move(module));
    return static_cast<ModuleHandle>(owned.back().get());
  }

  Status unloadModule(ModuleHandle module) override {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = owned.begin(); it != owned.end(); ++it)
      if (it->get() == module) {
        owned.erase(it);
        break;
      }
    return Status::success();
  }

  Result<KernelHandle> getKernel(ModuleHandle module,
                                 const char *kernelName) override {
    if (!module || !kernelName)
      return Status::error("getKernel needs a module and a kernel name");
    const emu::Kernel *kernel =
        static_cast<const emu::Module *>(module)->getKernel(kernelName);
    if (!kernel)
      return Status::error(std::string("no kernel '") + kernelName +
                           "' in the emulator module");
    return const_cast<KernelHandle>(static_cast<const void *>(kernel));
  }

  Status launch(KernelHandle kernel, const LaunchConfig &c,
                void **args) override {
    if (!kernel)
      return Status::error("launch of a null kernel");
    const auto &k = *static_cast<const emu::Kernel *>(kernel);
    emu::LaunchOptions options;
    options.countOperations = counting != EmulatorCounting::Off;
    options.profileBlocks = counting == EmulatorCounting::Profile;
    emu::LaunchResult result = emu::launch(k, {c.grid.x, c.grid.y, c.grid.z},
                                           {c.block.x, c.block.y, c.block.z},
                                           c.dynamicSharedBytes, args, options);
    {
      std::lock_guard<std::mutex> lock(launchesMutex);
      launches.push_back({k.name, result.counts, std::move(result.profile)});
    }
    if (!result.ok())
      return Status::error(result.message());
    return Status::success();
  }

  Result<DevicePtr> allocate(size_t bytes) override {
    void *ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!ptr)
      return Status::error("out of host memory allocating " +
                           std::to_string(bytes) + " bytes");
    return reinterpret_cast<DevicePtr>(ptr);
  }
  Status release(DevicePtr ptr) override {
    std::free(reinterpret_cast<void *>(ptr));
    return Status::success();
  }
  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
    return Status::success();
  }
  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
    return Status::success();
  }
  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes,
                      void *) override {
    std::memmove(reinterpret_cast<void *>(dst),
                 reinterpret_cast<const void *>(src), bytes);
    return Status::success();
  }
  Status fillZero(DevicePtr dst, size_t bytes, void *) override {
    std::memset(reinterpret_cast<void *>(dst), 0, bytes);
    return Status::success();
  }
  /// Launches finish before they return.
  Status synchronize(void *) override { return Status::success(); }

  std::vector<EmulatorLaunch> takeLaunches() {
    std::lock_guard<std::mutex> lock(launchesMutex);
    std::vector<EmulatorLaunch> taken = std::move(launches);
    launches.clear();
    return taken;
  }

private:
  std::string archName = "emulator";
  EmulatorCounting counting;
  std::mutex launchesMutex; // guards launches
  std::vector<EmulatorLaunch> launches;
  std::mutex mutex;
  std::vector<std::unique_ptr<emu::Module>> owned;
};

} // namespace

std::unique_ptr<Backend>
sympow::runtime::createEmulatorBackend(EmulatorCounting counting) {
  return std::make_unique<EmulatorBackend>(counting);
}

std::vector<EmulatorLaunch>
sympow::runtime::takeEmulatorLaunches(Backend &backend) {
  // By name, not dynamic_cast: backends may come from code built without
  // RTTI. Only EmulatorBackend calls itself "emulator".
  if (std::strcmp(backend.name(), "emulator") != 0)
    return {};
  return static_cast<EmulatorBackend &>(backend).takeLaunches();
}
