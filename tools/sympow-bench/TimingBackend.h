//===- TimingBackend.h - A backend that times every launch ------*- C++ -*-===//
//
// Wraps a backend: every launch goes through Backend::launchTimed (CUDA
// events on a GPU) and its device time is kept, in launch order, so a whole
// layer call (runtime::runLayerFromHost) is timed kernel by kernel without
// the layer code knowing.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_BENCH_TIMINGBACKEND_H
#define SYMPOW_BENCH_TIMINGBACKEND_H

#include "sympow/Runtime/Backend.h"

#include <vector>

namespace sympow::bench {

class TimingBackend final : public runtime::Backend {
public:
  explicit TimingBackend(runtime::Backend &inner) : inner(inner) {}

  /// Device seconds of the launches since the last call, in order.
  std::vector<double> takeTimes() { return std::move(times); }

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
    return inner.getKernel(m, n);
  }
  Status launch(runtime::KernelHandle k, const runtime::LaunchConfig &c,
                void **args) override {
    Result<double> seconds = inner.launchTimed(k, c, args);
    if (seconds.isError())
      return seconds.status();
    times.push_back(seconds.value());
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
  std::vector<double> times;
};

} // namespace sympow::bench

#endif // SYMPOW_BENCH_TIMINGBACKEND_H
