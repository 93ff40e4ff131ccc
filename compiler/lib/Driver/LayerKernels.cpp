//===- LayerKernels.cpp - A layer's kernels, compiled for a backend -------===//

#include "sympow/Compiler/Driver/LayerKernels.h"

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/GPU/AssembleKernels.h"
#include "sympow/Compiler/GPU/ChunkedKernels.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Compiler/GPU/Ptxas.h"
#include "sympow/Compiler/GPU/RecurrentKernel.h"
#include "sympow/Compiler/GPU/RuntimeKinds.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Emulator/Emulator.h"
#include "sympow/Runtime/CostModel.h"
#include "sympow/Runtime/GpuModel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

using namespace mlir;

namespace sympow {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Bumped when anything after the kernels' IR changes what a cached image
/// holds (the lowering pipelines, the image formats).
constexpr const char *kPipelineRevision = "sympow-pipelines-2";

std::string cacheKey(ModuleOp module, llvm::StringRef target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  llvm::SHA256 hash;
  hash.update(kPipelineRevision);
  hash.update(compilerFingerprint());
  hash.update(target);
  hash.update(text);
  return llvm::toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);
}

/// The file's bytes, if it exists.
std::unique_ptr<std::string> readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return nullptr;
  return std::make_unique<std::string>((*buffer)->getBuffer().str());
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a
/// concurrent reader never sees half a file.
llvm::Error writeAtomically(const std::string &path, llvm::StringRef bytes) {
  std::string temp = path + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(temp, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write the kernel cache file " + temp + ": " +
                  ec.message());
    os << bytes;
  }
  if (std::error_code rename = llvm::sys::fs::rename(temp, path))
    return fail("cannot write the kernel cache file " + path + ": " +
                rename.message());
  return llvm::Error::success();
}

} // namespace

int64_t defaultChunk(const AttentionKernelSpec &spec) {
  std::vector<int64_t> candidates = chunkCandidates(spec);
  runtime::LayerVariant variant =
      layerVariant({spec, runtime::Formulation::Chunked, candidates.front()});
  LayerSizes sizes = layerSizes(variant, 1, kDefaultChunkTokens, false);
  return preferredChunk(sizes, candidates, GpuSpec::h100());
}

llvm::Expected<LayerVariantRequest> parseLayerVariant(llvm::StringRef text) {
  // The formulation keys are ours; the rest is the kernel spec's.
  llvm::SmallVector<llvm::StringRef> items, rest;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  llvm::StringRef formulation = "all";
  std::optional<int64_t> chunk;
  bool formulationSet = false;
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    if ((key == "formulation" && formulationSet) || (key == "chunk" && chunk))
      return fail("variant key '" + key + "' is given twice");
    if (key == "formulation") {
      formulationSet = true;
      formulation = value;
    } else if (key == "chunk") {
      int64_t c;
      if (value.getAsInteger(10, c) || c < 1)
        return fail("variant key 'chunk' needs a positive integer, got '" +
                    value + "'");
      chunk = c;
    } else {
      rest.push_back(item);
    }
  }
  auto spec = parseAttentionVariant(llvm::join(rest, ","));
  if (!spec)
    return spec.takeError();
  // Before the default chunk, whose size formula assumes sane head dims
  // (d = -1, e = 0 once divided by zero there).
  if (llvm::Error error = verifyKernelVariant(*spec))
    return std::move(error);
  LayerVariantRequest out{*spec, {}};
  int64_t c = chunk ? *chunk : defaultChunk(*spec);
  auto add = [&](runtime::Formulation f) {
    out.requests.push_back(
        {*spec, f, f == runtime::Formulation::Chunked ? c : 0});
  };
  if (formulation == "all") {
    add(runtime::Formulation::Attention);
    if (!spec->relativeSchedule()) {
      add(runtime::Formulation::Chunked);
      add(runtime::Formulation::Recurrent);
    }
  } else if (formulation == "attention") {
    add(runtime::Formulation::Attention);
  } else if (formulation == "chunked") {
    add(runtime::Formulation::Chunked);
  } else if (formulation == "recurrent") {
    add(runtime::Formulation::Recurrent);
  } else {
    return fail("variant key 'formulation': unknown value '" + formulation +
                "', expected one of all, attention, chunked, recurrent");
  }
  if (chunk && formulation != "all" && formulation != "chunked")
    return fail("variant key 'chunk' only applies to the chunked formulation");
  return out;
}

runtime::LayerVariant layerVariant(const LayerKernelRequest &r) {
  return toRuntime(r.spec, r.formulation, r.chunk);
}

llvm::Error verifyLayerKernels(const LayerKernelRequest &r) {
  switch (r.formulation) {
  case runtime::Formulation::Attention: {
    if (llvm::Error e = verifyAttentionKernelSpec(r.spec))
      return e;
    // The runtime launches rotate_qk before a rotating 16-bit layer's
    // attention, which only the tile kernel reads.
    if (layerVariant(r).rotatesOperandsOnce() && !attentionTileOf(r.spec))
      return fail("a rotating 16-bit layer's attention runs as the tile "
                  "kernel (64 query rows a block, q and k rotated once by "
                  "rotate_qk): 'path' and 'block' do not apply to it in a "
                  "kernel library");
    return llvm::Error::success();
  }
  case runtime::Formulation::Recurrent:
    return verifyRecurrentKernelSpec(r.spec);
  case runtime::Formulation::Chunked:
    return verifyChunkedKernelSpec(r.spec, r.chunk);
  }
  return fail("unknown formulation");
}

void buildLayerKernels(OpBuilder &builder, gpu::GPUModuleOp module,
                       const LayerKernelRequest &r) {
  switch (r.formulation) {
  case runtime::Formulation::Attention:
    buildAttentionKernels(builder, module, r.spec);
    return;
  case runtime::Formulation::Recurrent:
    buildRecurrentKernel(builder, module, r.spec);
    return;
  case runtime::Formulation::Chunked:
    buildChunkedKernels(builder, module, r.spec, r.chunk);
    return;
  }
}

OwningOpRef<ModuleOp> buildLayerKernelModule(MLIRContext &context,
                                             const LayerKernelRequest &r) {
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     b.getUnitAttr());
  b.setInsertionPointToEnd(module->getBody());
  auto kernels = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
  buildLayerKernels(b, kernels, r);
  return module;
}

std::vector<runtime::KernelInfo> kernelInfos(ModuleOp module,
                                             const runtime::LayerVariant &v) {
  std::vector<runtime::KernelInfo> infos;
  for (const std::string &name : runtime::layerKernelNames(v)) {
    runtime::KernelInfo info{name, {}};
    module->walk([&](gpu::GPUFuncOp fn) {
      if (fn.getName() != name)
        return;
      if (std::optional<runtime::KernelLaunch> launch =
              tile::getKernelLaunch(fn))
        info.launch = *launch;
    });
    infos.push_back(info);
  }
  return infos;
}

CompiledLayerKernels::~CompiledLayerKernels() = default;

llvm::Expected<std::vector<PtxasUsage>>
kernelResources(const LayerKernelRequest &request, llvm::StringRef arch) {
  if (llvm::Error error = verifyLayerKernels(request))
    return std::move(error);
  MLIRContext context;
  DialectRegistry registry;
  registerGPUDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = buildLayerKernelModule(context, request);
  GpuTargetOptions options;
  options.chip = arch.str();
  llvm::SmallString<128> temp;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sympow-kernels", "cubin", temp))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  auto assembled = assembleKernels(*module, options, temp);
  llvm::sys::fs::remove(temp);
  if (!assembled)
    return assembled.takeError();
  return std::move(assembled->usage);
}

llvm::Expected<std::unique_ptr<CompiledLayerKernels>>
compileLayerKernels(const LayerKernelRequest &request, KernelTarget target,
                    const std::vector<std::string> &archs,
                    const std::string &cacheDir) {
  if (llvm::Error error = verifyLayerKernels(request))
    return std::move(error);
  MLIRContext context;
  DialectRegistry registry;
  EmulatorJIT::registerDialects(registry);
  registerGPUDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = buildLayerKernelModule(context, request);

  auto compiled =
      std::unique_ptr<CompiledLayerKernels>(new CompiledLayerKernels());
  compiled->infoList = kernelInfos(*module, layerVariant(request));
  auto addImage = [&](std::string arch, runtime::ImageFormat format,
                      std::unique_ptr<std::string> bytes) {
    compiled->imageList.push_back(
        {std::move(arch), format, bytes->data(), bytes->size()});
    compiled->storage.push_back(std::move(bytes));
  };
  bool useCache = !cacheDir.empty();
  if (useCache)
    if (std::error_code ec = llvm::sys::fs::create_directories(cacheDir))
      return fail("cannot create the kernel cache " + cacheDir + ": " +
                  ec.message());
  auto cachePath = [&](llvm::StringRef what, llvm::StringRef extension) {
    llvm::SmallString<256> path(cacheDir);
    llvm::sys::path::append(path,
                            cacheKey(*module, what) + "." + extension.str());
    return std::string(path);
  };

  switch (target) {
  case KernelTarget::EmulatorJIT: {
    auto jit = EmulatorJIT::compile(*module);
    if (!jit)
      return jit.takeError();
    compiled->jit = std::move(*jit);
    compiled->imageList.push_back(
        {"emulator", runtime::ImageFormat::EmulatorModule,
         &compiled->jit->module(), sizeof(emu::Module)});
    return compiled;
  }
  case KernelTarget::EmulatorShared: {
    std::string path = useCache ? cachePath("emulator", "so") : "";
    std::unique_ptr<std::string> bytes = useCache ? readFile(path) : nullptr;
    compiled->cached = static_cast<bool>(bytes);
    if (!bytes) {
      llvm::SmallString<128> temp;
      if (std::error_code ec =
              llvm::sys::fs::createTemporaryFile("sympow-kernels", "so", temp))
        return fail("cannot create a temporary file: " + ec.message());
      llvm::Error error = emitSharedObject(*module, temp);
      bytes = readFile(std::string(temp));
      llvm::sys::fs::remove(temp);
      if (error)
        return std::move(error);
      if (!bytes)
        return fail("the emulator's shared object was not written");
      if (useCache)
        if (llvm::Error e = writeAtomically(path, *bytes))
          return std::move(e);
    }
    addImage("emulator", runtime::ImageFormat::HostSharedObject,
             std::move(bytes));
    return compiled;
  }
  case KernelTarget::Cuda: {
    compiled->cached = true;
    for (const std::string &arch : archs) {
      std::string ptxPath = useCache ? cachePath(arch, "ptx") : "";
      std::string cubinPath = useCache ? cachePath(arch, "cubin") : "";
      std::unique_ptr<std::string> ptx = useCache ? readFile(ptxPath) : nullptr;
      std::unique_ptr<std::string> cubin =
          useCache ? readFile(cubinPath) : nullptr;
      if (!ptx || !cubin) {
        compiled->cached = false;
        GpuTargetOptions options;
        options.chip = arch;
        llvm::SmallString<128> temp;
        if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
                "sympow-kernels", "cubin", temp))
          return fail("cannot create a temporary file: " + ec.message());
        auto assembled = assembleKernels(*module, options, temp);
        cubin = readFile(std::string(temp));
        llvm::sys::fs::remove(temp);
        if (!assembled)
          return assembled.takeError();
        ptx = std::make_unique<std::string>(std::move(assembled->ptx));
        if (!cubin)
          return fail("ptxas wrote no cubin for " + arch);
        if (useCache) {
          if (llvm::Error e = writeAtomically(ptxPath, *ptx))
            return std::move(e);
          if (llvm::Error e = writeAtomically(cubinPath, *cubin))
            return std::move(e);
        }
      }
      addImage(arch, runtime::ImageFormat::Cubin, std::move(cubin));
      // The driver reads PTX up to its NUL.
      ptx->push_back('\0');
      addImage(arch, runtime::ImageFormat::Ptx, std::move(ptx));
    }
    return compiled;
  }
  }
  return fail("unknown kernel target");
}

const std::string &compilerFingerprint() {
  static const std::string fingerprint = [] {
    std::string exe = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&compilerFingerprint));
    llvm::sys::fs::file_status status;
    if (exe.empty() || llvm::sys::fs::status(exe, status))
      return std::string(kPipelineRevision);
    return exe + ":" + std::to_string(status.getSize()) + ":" +
           std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  }();
  return fingerprint;
}

std::string defaultKernelCacheDir() {
  if (const char *dir = std::getenv("SYMPOW_CACHE_DIR"); dir && *dir)
    return dir;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    path = "/tmp";
  llvm::sys::path::append(path, "sympow");
  return std::string(path);
}

} // namespace sympow
