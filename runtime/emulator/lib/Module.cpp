//===- Module.cpp - The kernels of a compiled module ----------------------===//

#include "sympow/Emulator/ABI.h"
#include "sympow/Emulator/Emulator.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

using namespace sympow::emu;

std::unique_ptr<Module>
Module::fromSymbols(const std::function<void *(const std::string &)> &lookup,
                    std::string &error) {
  auto *manifest = static_cast<const char *>(lookup(abi::kManifest));
  if (!manifest) {
    error = std::string("no '") + abi::kManifest +
            "' symbol: the module was not lowered by sympow-gpu-to-emulator";
    return nullptr;
  }
  // Bind the module's calls into the runtime.
  auto **table = static_cast<void **>(lookup(abi::kRuntimeTable));
  if (!table) {
    error = std::string("no '") + abi::kRuntimeTable + "' symbol in the module";
    return nullptr;
  }
  std::vector<std::pair<const char *, void *>> symbols = runtimeSymbols();
  for (int i = 0; i < abi::kNumRuntimeFunctions; ++i) {
    std::string name = abi::kRuntimeFunctions[i];
    auto it = std::find_if(symbols.begin(), symbols.end(),
                           [&](const auto &s) { return name == s.first; });
    table[i] = it->second;
  }
  std::unique_ptr<Module> module(new Module());
  std::istringstream lines(manifest);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string qualified, symbol;
    Kernel kernel;
    Dim3 &block = kernel.requiredBlock;
    int checked = 1;
    if (!(fields >> qualified >> symbol >> kernel.staticSharedBytes >>
          kernel.numArgs >> block.x >> block.y >> block.z >> checked)) {
      error = "malformed manifest line '" + line + "'";
      return nullptr;
    }
    kernel.checkedAccesses = checked != 0;
    kernel.entry = reinterpret_cast<void (*)(void **)>(lookup(symbol));
    if (!kernel.entry) {
      error = "kernel '" + qualified + "': entry '" + symbol + "' not found";
      return nullptr;
    }
    size_t sep = qualified.rfind("::");
    kernel.name =
        sep == std::string::npos ? qualified : qualified.substr(sep + 2);
    module->kernelList.push_back(kernel);
    module->qualifiedNames.push_back(qualified);
  }
  return module;
}

std::unique_ptr<Module> Module::loadSharedObject(const std::string &path,
                                                 std::string &error) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = dlerror();
    return nullptr;
  }
  auto module = fromSymbols(
      [&](const std::string &name) { return dlsym(handle, name.c_str()); },
      error);
  if (!module) {
    dlclose(handle);
    return nullptr;
  }
  module->handle = handle;
  return module;
}

std::unique_ptr<Module> Module::loadSharedObjectImage(const void *image,
                                                      size_t size,
                                                      std::string &error) {
  int fd = memfd_create("sympow-emulator-module", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create: ") + std::strerror(errno);
    return nullptr;
  }
  const char *p = static_cast<const char *>(image);
  size_t left = size;
  while (left) {
    ssize_t n = write(fd, p, left);
    if (n <= 0) {
      error = std::string("writing the image: ") + std::strerror(errno);
      close(fd);
      return nullptr;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // The descriptor stays open while the module lives: dlopen knows a loaded
  // object by its path, and a closed descriptor's number (so its
  // /proc/self/fd path) is reused by the next image, which would then be
  // taken for this one.
  auto module = loadSharedObject("/proc/self/fd/" + std::to_string(fd), error);
  if (!module) {
    close(fd);
    return nullptr;
  }
  module->imageFd = fd;
  return module;
}

Module::~Module() {
  if (handle)
    dlclose(handle);
  if (imageFd >= 0)
    close(imageFd);
}

const Kernel *Module::getKernel(const std::string &name) const {
  const Kernel *found = nullptr;
  for (size_t i = 0; i < kernelList.size(); ++i) {
    if (qualifiedNames[i] == name)
      return &kernelList[i];
    if (kernelList[i].name == name) {
      if (found)
        return nullptr; // ambiguous: ask for "module::kernel"
      found = &kernelList[i];
    }
  }
  return found;
}
