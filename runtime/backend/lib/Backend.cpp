//===- Backend.cpp - What every backend shares
//-----------------------------===//

#include "sympow/Runtime/Backend.h"

#include <chrono>

using namespace sympow::runtime;

sympow::Result<double> Backend::launchTimed(KernelHandle kernel,
                                            const LaunchConfig &config,
                                            void **args) {
  if (Status s = synchronize(config.stream); s.isError())
    return s;
  auto start = std::chrono::steady_clock::now();
  if (Status s = launch(kernel, config, args); s.isError())
    return s;
  if (Status s = synchronize(config.stream); s.isError())
    return s;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
