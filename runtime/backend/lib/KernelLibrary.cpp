//===- KernelLibrary.cpp - Kernel images loaded once, on demand -----------===//

#include "sympow/Runtime/KernelLibrary.h"

#include <cctype>

using namespace sympow;
using namespace sympow::runtime;

KernelLibrary::KernelLibrary(Backend &backend, std::vector<KernelImage> images,
                             std::vector<KernelInfo> kernels)
    : backend(backend), images(std::move(images)), infos(std::move(kernels)) {}

LaunchConfig KernelLibrary::launchConfig(size_t index, int64_t B, int64_t T,
                                         void *stream) const {
  const KernelLaunch &l = infos[index].launch;
  LaunchConfig config;
  config.grid = l.grid(B, T);
  config.block = l.block;
  config.dynamicSharedBytes = l.dynamicSharedBytes;
  config.stream = stream;
  return config;
}

KernelLibrary::~KernelLibrary() {
  if (module)
    (void)backend.unloadModule(module);
}

/// sm_XY as the number XY; -1 if `arch` is not of that form.
static int archNumber(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return -1;
  int number = 0;
  size_t i = 3;
  for (; i < arch.size() && isdigit(static_cast<unsigned char>(arch[i])); ++i)
    number = number * 10 + (arch[i] - '0');
  return i == 3 ? -1 : number;
}

const KernelImage *KernelLibrary::selectImage() const {
  const std::string &target = backend.arch();
  // A binary for exactly this architecture (sm_90a is sm_90 with its
  // architecture-specific features).
  for (const KernelImage &image : images)
    if (image.format != ImageFormat::Ptx &&
        (image.arch == target || image.arch == target + "a"))
      return &image;
  // PTX JIT-compiles for any architecture at least as new as its own.
  const KernelImage *best = nullptr;
  int device = archNumber(target);
  for (const KernelImage &image : images)
    if (image.format == ImageFormat::Ptx && archNumber(image.arch) <= device &&
        (!best || archNumber(image.arch) > archNumber(best->arch)))
      best = &image;
  return best;
}

Status KernelLibrary::load() {
  const KernelImage *image = selectImage();
  if (!image) {
    std::string built;
    for (const KernelImage &i : images)
      built += (built.empty() ? "" : ", ") + i.arch;
    return Status::error("no kernel image for " + backend.arch() +
                         " (built for: " + (built.empty() ? "none" : built) +
                         "); rebuild with --arch " + backend.arch());
  }
  Result<ModuleHandle> loaded =
      backend.loadModule(image->data, image->size, image->format);
  if (loaded.isError())
    return loaded.status();
  module = loaded.value();
  handles.reserve(infos.size());
  for (const KernelInfo &info : infos) {
    Result<KernelHandle> handle = backend.getKernel(module, info.name.c_str());
    if (handle.isError())
      return handle.status();
    handles.push_back(handle.value());
  }
  return Status::success();
}

Result<KernelHandle> KernelLibrary::kernel(size_t index) {
  std::call_once(once, [this] { loadStatus = load(); });
  if (loadStatus.isError())
    return loadStatus;
  if (index >= handles.size())
    return Status::error("kernel index " + std::to_string(index) +
                         " out of range: the library has " +
                         std::to_string(handles.size()) + " kernels");
  return handles[index];
}
