//===- TimingBackend.h - A backend that times every launch ------*- C++ -*-===//
//
// Wraps a backend: every launch goes through Backend::launchTimed (CUDA
// events on a GPU, the host's clock on the emulator) and its name and
// seconds are kept, in launch order, so a whole layer call
// (runtime::runLayerFromHost) is timed kernel by kernel without the layer
// code knowing. Optionally it flushes the L2 cache just before the next
// launch (after the layer has uploaded its inputs, which would otherwise
// sit in L2) and reports each launch to a hook (progress on the emulator).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_BENCH_TIMINGBACKEND_H
#define SYMPOW_BENCH_TIMINGBACKEND_H

#include "sympow/Runtime/Backend.h"

#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace sympow::bench {

class TimingBackend final : public runtime::Backend {
public:
  /// Called before a launch (seconds empty) and after it (its seconds).
  using Hook = std::function<void(const std::string &kernel,
                                  const runtime::LaunchConfig &config,
                                  std::optional<double> seconds)>;

  explicit TimingBackend(runtime::Backend &inner, Hook hook = {})
      : inner(inner), hook(std::move(hook)) {}

  /// Device seconds of the launches since the last call, in order.
  std::vector<double> takeTimes() { return std::move(times); }
  /// The kernels' names of those launches, in order.
  std::vector<std::string> takeNames() { return std::move(names); }

  /// Writes `bytes` of zeros to `buffer` (and waits) just before the next
  /// launch, outside its timing.
  void flushBeforeNextLaunch(runtime::DevicePtr buffer, size_t bytes) {
    flush = {buffer, bytes};
  }

  const char *name() const override { return inner.name(); }
  const std::string &arch() const override { return inner.arch(); }
  Result<runtime::ModuleHandle> loadModule(const void *image, size_t size,
                                           runtime::ImageFormat f) override {
    return inner.loadModule(image, size, f);
  }
  Status unloadModule(runtime::ModuleHandle m) override {
    return inner.unloadModule(m);
  }
  Result<runtime::KernelHandle> getKernel(runtime::ModuleHandle m,
                                          const char *n) override {
    Result<runtime::KernelHandle> kernel = inner.getKernel(m, n);
    if (kernel.isOk())
      kernelNames[kernel.value()] = n;
    return kernel;
  }
  Status launch(runtime::KernelHandle k, const runtime::LaunchConfig &c,
                void **args) override {
    if (flush) {
      auto [buffer, bytes] = *flush;
      flush.reset();
      if (Status s = inner.fillZero(buffer, bytes, c.stream); s.isError())
        return s;
      if (Status s = inner.synchronize(c.stream); s.isError())
        return s;
    }
    auto found = kernelNames.find(k);
    std::string kernel = found == kernelNames.end() ? "?" : found->second;
    if (hook)
      hook(kernel, c, std::nullopt);
    Result<double> seconds = inner.launchTimed(k, c, args);
    if (seconds.isError())
      return seconds.status();
    if (hook)
      hook(kernel, c, seconds.value());
    times.push_back(seconds.value());
    names.push_back(kernel);
    return Status::success();
  }
  Result<runtime::DevicePtr> allocate(size_t bytes) override {
    return inner.allocate(bytes);
  }
  Status release(runtime::DevicePtr p) override { return inner.release(p); }
  Status copyToDevice(runtime::DevicePtr d, const void *s,
                      size_t bytes) override {
    return inner.copyToDevice(d, s, bytes);
  }
  Status copyToHost(void *d, runtime::DevicePtr s, size_t bytes) override {
    return inner.copyToHost(d, s, bytes);
  }
  Status copyOnDevice(runtime::DevicePtr d, runtime::DevicePtr s, size_t bytes,
                      void *stream) override {
    return inner.copyOnDevice(d, s, bytes, stream);
  }
  Status fillZero(runtime::DevicePtr d, size_t bytes, void *stream) override {
    return inner.fillZero(d, bytes, stream);
  }
  Status synchronize(void *stream) override {
    return inner.synchronize(stream);
  }

private:
  runtime::Backend &inner;
  Hook hook;
  std::map<runtime::KernelHandle, std::string> kernelNames;
  std::optional<std::pair<runtime::DevicePtr, size_t>> flush;
  std::vector<double> times;
  std::vector<std::string> names;
};

} // namespace sympow::bench

#endif // SYMPOW_BENCH_TIMINGBACKEND_H
