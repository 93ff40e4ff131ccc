//===- Context.cpp - Contexts, errors and device memory of the C API ------===//

#include "Context.h"

#include "Registry.h"

#include "sympow/Runtime/CudaBackend.h"
#include "sympow/Runtime/EmulatorBackend.h"

using namespace sympow;
using namespace sympow::capi;

static thread_local std::string lastError;

sympow_status sympow::capi::fail(sympow_status code,
                                 const std::string &message) {
  lastError = message;
  return code;
}

sympow_status sympow::capi::succeed() {
  lastError.clear();
  return SYMPOW_SUCCESS;
}

static runtime::ImageFormat imageFormat(sympow_image_format format) {
  switch (format) {
  case SYMPOW_IMAGE_CUBIN:
    return runtime::ImageFormat::Cubin;
  case SYMPOW_IMAGE_PTX:
    return runtime::ImageFormat::Ptx;
  case SYMPOW_IMAGE_HOST_SHARED_OBJECT:
    return runtime::ImageFormat::HostSharedObject;
  }
  return runtime::ImageFormat::Cubin;
}

std::unique_ptr<sympow_context>
sympow::capi::makeContext(std::unique_ptr<runtime::Backend> backend,
                          const sympow_registry &registry) {
  auto context = std::make_unique<sympow_context>();
  context->backend = std::move(backend);
  context->registry = &registry;
  for (uint32_t i = 0; i < registry.entry_count; ++i) {
    const sympow_registry_entry &entry = registry.entries[i];
    std::vector<runtime::KernelImage> images;
    for (uint32_t j = 0; j < entry.image_count; ++j) {
      const sympow_registry_image &image = entry.images[j];
      images.push_back({image.arch, imageFormat(image.format), image.data,
                        size_t(image.size)});
    }
    std::vector<runtime::KernelInfo> kernels;
    for (uint32_t j = 0; j < entry.kernel_count; ++j) {
      const sympow_registry_kernel &k = entry.kernels[j];
      runtime::KernelInfo info;
      info.name = k.name;
      info.launch.block = {k.block[0], k.block[1], k.block[2]};
      info.launch.tokensPerBlock = k.tokens_per_block;
      info.launch.gridY = k.grid_y;
      info.launch.dynamicSharedBytes = k.dynamic_shared_bytes;
      info.launch.blocksX = k.blocks_x;
      kernels.push_back(std::move(info));
    }
    context->libraries.push_back(std::make_unique<runtime::KernelLibrary>(
        *context->backend, std::move(images), std::move(kernels)));
  }
  return context;
}

extern "C" {

const char *sympow_last_error(void) { return lastError.c_str(); }

sympow_status sympow_context_create(sympow_backend backend, int device,
                                    sympow_context **context) {
  if (!context)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_context_create: 'context' is null");
  *context = nullptr;
  const sympow_registry *registry = activeRegistry();
  if (!registry)
    return fail(SYMPOW_ERROR_NOT_COMPILED,
                "this program has no kernel registry: link a library built "
                "by sympow-aot (libsympow_kernels)");
  if (registry->version != SYMPOW_REGISTRY_VERSION)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "the kernel registry has version " +
                    std::to_string(registry->version) +
                    ", this runtime reads version " +
                    std::to_string(SYMPOW_REGISTRY_VERSION) +
                    ": rebuild the library with the same sympow-aot");
  std::unique_ptr<runtime::Backend> made;
  switch (backend) {
  case SYMPOW_BACKEND_EMULATOR:
    made = runtime::createEmulatorBackend(runtime::EmulatorCounting::Off);
    break;
  case SYMPOW_BACKEND_CUDA: {
    Result<std::unique_ptr<runtime::Backend>> cuda =
        runtime::createCudaBackend(device);
    if (cuda.isError())
      return fail(SYMPOW_ERROR_NO_DEVICE, cuda.message());
    made = std::move(cuda.value());
    break;
  }
  default:
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "backend " + std::to_string(int(backend)) +
                    " is unknown: use SYMPOW_BACKEND_EMULATOR or "
                    "SYMPOW_BACKEND_CUDA");
  }
  *context = makeContext(std::move(made), *registry).release();
  return succeed();
}

void sympow_context_destroy(sympow_context *context) { delete context; }

size_t sympow_variant_count(void) {
  const sympow_registry *registry = activeRegistry();
  return registry ? registry->entry_count : 0;
}

const char *sympow_variant_name(size_t index) {
  const sympow_registry *registry = activeRegistry();
  if (!registry || index >= registry->entry_count)
    return nullptr;
  return registry->entries[index].variant;
}

sympow_status sympow_variant_desc(size_t index, sympow_layer_desc *desc) {
  const sympow_registry *registry = activeRegistry();
  if (!desc)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_variant_desc: 'desc' is null");
  if (!registry || index >= registry->entry_count)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "variant " + std::to_string(index) +
                    " does not exist: the "
                    "library holds " +
                    std::to_string(registry ? registry->entry_count : 0));
  *desc = registry->entries[index].desc;
  return succeed();
}

sympow_status sympow_device_alloc(sympow_context *context, size_t bytes,
                                  void **ptr) {
  if (!context || !ptr)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_device_alloc: 'context' and 'ptr' must not be null");
  Result<runtime::DevicePtr> made = context->backend->allocate(bytes);
  if (made.isError())
    return fail(SYMPOW_ERROR_BACKEND, made.message());
  *ptr = reinterpret_cast<void *>(made.value());
  return succeed();
}

sympow_status sympow_device_free(sympow_context *context, void *ptr) {
  if (!context)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_device_free: 'context' is null");
  if (!ptr)
    return succeed();
  Status s =
      context->backend->release(reinterpret_cast<runtime::DevicePtr>(ptr));
  return s.isError() ? fail(SYMPOW_ERROR_BACKEND, s.message()) : succeed();
}

sympow_status sympow_copy_to_device(sympow_context *context, void *dst,
                                    const void *src, size_t bytes) {
  if (!context || ((!dst || !src) && bytes))
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_copy_to_device: null context, destination or source");
  Status s = context->backend->copyToDevice(
      reinterpret_cast<runtime::DevicePtr>(dst), src, bytes);
  return s.isError() ? fail(SYMPOW_ERROR_BACKEND, s.message()) : succeed();
}

sympow_status sympow_copy_to_host(sympow_context *context, void *dst,
                                  const void *src, size_t bytes) {
  if (!context || ((!dst || !src) && bytes))
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_copy_to_host: null context, destination or source");
  Status s = context->backend->copyToHost(
      dst, reinterpret_cast<runtime::DevicePtr>(src), bytes);
  return s.isError() ? fail(SYMPOW_ERROR_BACKEND, s.message()) : succeed();
}

sympow_status sympow_synchronize(sympow_context *context, void *stream) {
  if (!context)
    return fail(SYMPOW_ERROR_INVALID_ARGUMENT,
                "sympow_synchronize: 'context' is null");
  Status s = context->backend->synchronize(stream);
  return s.isError() ? fail(SYMPOW_ERROR_BACKEND, s.message()) : succeed();
}

} // extern "C"
