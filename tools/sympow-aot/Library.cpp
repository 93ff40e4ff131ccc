//===- Library.cpp - A kernel library from built modules ------------------===//
//
// The registry is C source: the images are pulled in by the assembler's
// .incbin (no multi-megabyte array literals to compile), the tables are
// plain initialisers of sympow_kernels_registry.h's structs. The system's C
// compiler compiles it; the static library is the runtime's archives plus
// that object; the shared library links the static one whole and exports
// only the C API.
//
//===----------------------------------------------------------------------===//

#include "Library.h"

#include "RuntimeFiles.h"

#include "sympow/CAPI/Desc.h"

#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <deque>
#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace sympow;
using namespace sympow::aot;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string join(llvm::StringRef dir, llvm::StringRef file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return p.str().str();
}

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write " + path + ": " + ec.message());
  os << text;
  os.close();
  if (os.has_error()) { // a full disk, say: an error, not a fatal one
    std::error_code why = os.error();
    os.clear_error();
    return fail("cannot write " + path + ": " + why.message());
  }
  return llvm::Error::success();
}

/// The C API's description of a request (its normal form).
llvm::Expected<sympow_layer_desc> descOf(const LayerKernelRequest &request) {
  const AttentionKernelSpec &s = request.spec;
  sympow_layer_desc d;
  sympow_layer_desc_init(&d);
  d.power = s.p;
  d.head_dim = s.d;
  d.value_dim = s.e;
  d.query_heads = s.hq;
  d.kv_heads = s.h;
  d.dtype = s.dtype == ElementKind::BF16  ? SYMPOW_DTYPE_BF16
            : s.dtype == ElementKind::F16 ? SYMPOW_DTYPE_F16
                                          : SYMPOW_DTYPE_F32;
  d.has_log_g = s.hasLogG();
  d.has_log_gamma = s.hasLogGamma();
  switch (s.schedule) {
  case ScheduleKind::None:
    d.schedule = SYMPOW_SCHEDULE_NONE;
    break;
  case ScheduleKind::Uniform:
    d.schedule = SYMPOW_SCHEDULE_UNIFORM;
    break;
  case ScheduleKind::Learned:
    d.schedule = SYMPOW_SCHEDULE_LEARNED;
    break;
  case ScheduleKind::Warped:
    d.schedule = SYMPOW_SCHEDULE_WARPED;
    break;
  case ScheduleKind::Blend:
    d.schedule = SYMPOW_SCHEDULE_BLEND;
    break;
  }
  d.rope_base = s.rotaryBase;
  d.rope_scale = s.rateScale;
  d.rope_dims = s.effectiveRotaryDims();
  d.rope_layout = s.layout == RotaryLayout::Half ? SYMPOW_ROPE_HALF
                                                 : SYMPOW_ROPE_INTERLEAVED;
  d.warp_length = s.length;
  d.scale = s.effectiveScale();
  d.formulation = request.formulation == runtime::Formulation::Chunked
                      ? SYMPOW_FORMULATION_CHUNKED
                  : request.formulation == runtime::Formulation::Recurrent
                      ? SYMPOW_FORMULATION_RECURRENT
                      : SYMPOW_FORMULATION_ATTENTION;
  d.chunk_size = request.chunk;
  Result<sympow_layer_desc> normal = capi::normalizeDesc(d);
  if (normal.isError())
    return fail("the C API cannot describe this variant: " + normal.message());
  return normal.value();
}

/// A C string literal of `text`.
std::string cString(llvm::StringRef text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      s += '\\';
    s += c;
  }
  return s + "\"";
}

/// A double as C source that reads back to the same value.
std::string cDouble(double x) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", x);
  std::string s = text;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

std::string descInitializer(const sympow_layer_desc &d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "{" << d.power << ", " << d.head_dim << ", " << d.value_dim << ", "
     << d.query_heads << ", " << d.kv_heads << ", (sympow_dtype)" << d.dtype
     << ", " << d.has_log_g << ", " << d.has_log_gamma << ", (sympow_schedule)"
     << d.schedule << ", " << cDouble(d.rope_base) << ", "
     << cDouble(d.rope_scale) << ", " << d.rope_dims << ", (sympow_rope_layout)"
     << d.rope_layout << ", " << d.warp_length << ", " << cDouble(d.scale)
     << ", (sympow_formulation)" << d.formulation << ", " << d.chunk_size
     << "}";
  return s;
}

/// The registry's C source for `modules`, whose files are in `outDir`.
llvm::Expected<std::string>
registrySource(const std::vector<ModuleBuild> &modules,
               llvm::StringRef outDir) {
  std::string src;
  llvm::raw_string_ostream os(src);
  os << "/* Generated by sympow-aot: the kernels of this library. */\n"
        "#include \"sympow_kernels_registry.h\"\n\n";
  // The images, as hidden symbols the assembler fills from the files.
  os << "__asm__(\".section .rodata\\n\"\n";
  int blob = 0;
  for (const ModuleBuild &m : modules)
    for (const ModuleBuild::Image &image : m.images) {
      std::string path = join(outDir, image.file);
      if (llvm::StringRef(path).find_first_of("\"\\\n") !=
          llvm::StringRef::npos)
        return fail("the output folder's path " + path +
                    " has a quote, backslash or newline; choose another --out");
      std::string sym = "sympow_kernels_image_" + std::to_string(blob++);
      os << "        \".globl " << sym << "\\n.hidden " << sym
         << "\\n.balign 16\\n"
         << sym << ":\\n.incbin \\\"" << path << "\\\"\\n.byte 0\\n\"\n";
    }
  os << "        \".previous\\n\");\n\n";

  blob = 0;
  for (const ModuleBuild &m : modules)
    for (size_t i = 0; i < m.images.size(); ++i)
      os << "extern const unsigned char sympow_kernels_image_" << blob++
         << "[] __attribute__((visibility(\"hidden\")));\n";
  os << "\n";

  blob = 0;
  for (size_t e = 0; e < modules.size(); ++e) {
    const ModuleBuild &m = modules[e];
    os << "static const sympow_registry_image images_" << e << "[] = {\n";
    for (const ModuleBuild::Image &image : m.images) {
      uint64_t size = 0;
      if (std::error_code ec =
              llvm::sys::fs::file_size(join(outDir, image.file), size))
        return fail("cannot read " + join(outDir, image.file) + ": " +
                    ec.message());
      const char *format = image.ptx ? "SYMPOW_IMAGE_PTX"
                           : image.arch == "emulator"
                               ? "SYMPOW_IMAGE_HOST_SHARED_OBJECT"
                               : "SYMPOW_IMAGE_CUBIN";
      // PTX is read up to its NUL, which .byte 0 added.
      os << "    {" << cString(image.arch) << ", " << format
         << ", sympow_kernels_image_" << blob++ << ", "
         << (image.ptx ? size + 1 : size) << "},\n";
    }
    os << "};\n";
    os << "static const sympow_registry_kernel kernels_" << e << "[] = {\n";
    for (const runtime::KernelInfo &k : m.kernels)
      os << "    {" << cString(k.name) << ", {" << k.launch.block.x << ", "
         << k.launch.block.y << ", " << k.launch.block.z << "}, "
         << k.launch.tokensPerBlock << ", " << k.launch.gridY << ", "
         << k.launch.dynamicSharedBytes << ", " << k.launch.blocksX << "},\n";
    os << "};\n\n";
  }

  os << "static const sympow_registry_entry entries[] = {\n";
  for (size_t e = 0; e < modules.size(); ++e) {
    llvm::Expected<sympow_layer_desc> desc = descOf(modules[e].request);
    if (!desc)
      return fail(modules[e].name + ": " + llvm::toString(desc.takeError()));
    os << "    {" << cString(capi::variantString(*desc)) << ",\n     "
       << descInitializer(*desc) << ",\n     images_" << e << ", "
       << modules[e].images.size() << ", kernels_" << e << ", "
       << modules[e].kernels.size() << "},\n";
  }
  os << "};\n\n";
  os << "const sympow_registry sympow_kernels_registry = {\n"
     << "    SYMPOW_REGISTRY_VERSION, " << cString(compilerFingerprint())
     << ", entries, " << modules.size() << "};\n";
  return src;
}

/// Runs `program` with `args`; the error quotes the command.
llvm::Error run(llvm::StringRef program, llvm::ArrayRef<std::string> args) {
  std::vector<llvm::StringRef> argv = {program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::string message;
  int status = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, {}, 0, 0,
                                         &message);
  if (status == 0)
    return llvm::Error::success();
  std::string command = program.str();
  for (const std::string &a : args)
    command += " " + a;
  return fail("'" + command + "' failed" +
              (message.empty() ? "" : ": " + message));
}

/// $`variable` if set, else the first of `names` in PATH.
llvm::Expected<std::string>
findCompiler(const char *variable, std::initializer_list<const char *> names) {
  if (const char *env = std::getenv(variable); env && *env) {
    if (auto found = llvm::sys::findProgramByName(env))
      return *found;
    return fail(std::string("$") + variable + " = " + env +
                " is not a program");
  }
  for (const char *name : names)
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  return fail(std::string("no ") + *names.begin() + " in PATH (or $" +
              variable + ") to build the library");
}

/// The static library: every member of the runtime's archives, then the
/// registry object.
llvm::Error writeStaticLibrary(llvm::StringRef path, llvm::StringRef registry) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
  std::vector<std::unique_ptr<llvm::object::Archive>> archives;
  std::vector<llvm::NewArchiveMember> members;
  std::deque<std::string> names; // members refer to them
  for (const char *archivePath : kRuntimeArchives) {
    auto buffer = llvm::MemoryBuffer::getFile(archivePath);
    if (!buffer)
      return fail(std::string("cannot read the runtime archive ") +
                  archivePath + ": " + buffer.getError().message());
    auto archive = llvm::object::Archive::create((*buffer)->getMemBufferRef());
    if (!archive)
      return fail(std::string(archivePath) + ": " +
                  llvm::toString(archive.takeError()));
    llvm::Error err = llvm::Error::success();
    for (const llvm::object::Archive::Child &child :
         (*archive)->children(err)) {
      auto member = llvm::NewArchiveMember::getOldMember(child, false);
      if (!member)
        return member.takeError();
      // Object names repeat across the runtime's libraries.
      names.push_back(llvm::sys::path::stem(archivePath).str() + "." +
                      member->MemberName.str());
      member->MemberName = names.back();
      members.push_back(std::move(*member));
    }
    if (err)
      return err;
    buffers.push_back(std::move(*buffer));
    archives.push_back(std::move(*archive));
  }
  auto object = llvm::NewArchiveMember::getFile(registry, false);
  if (!object)
    return object.takeError();
  members.push_back(std::move(*object));
  return llvm::writeArchive(
      path, members, llvm::SymtabWritingMode::NormalSymtab,
      llvm::object::Archive::K_GNU, /*Deterministic=*/true,
      /*Thin=*/false);
}

llvm::Error copyFile(llvm::StringRef from, llvm::StringRef to) {
  if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
    return fail("cannot copy " + from + " to " + to + ": " + ec.message());
  return llvm::Error::success();
}

std::string cmakeConfig(const std::vector<ModuleBuild> &modules) {
  std::string variants;
  for (const ModuleBuild &m : modules) {
    llvm::Expected<sympow_layer_desc> desc = descOf(m.request);
    if (desc)
      variants += "\n  \"" + capi::variantString(*desc) + "\"";
    else
      llvm::consumeError(desc.takeError());
  }
  return R"(# Generated by sympow-aot. find_package(SympowKernels) gives
#   SympowKernels::kernels  the static library (the default to link)
#   SympowKernels::shared   the shared library
# and SympowKernels_VARIANTS, the variants compiled in.
get_filename_component(_sympow_kernels_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
include(CMakeFindDependencyMacro)
find_dependency(Threads)
if(NOT TARGET SympowKernels::kernels)
  add_library(SympowKernels::kernels STATIC IMPORTED)
  set_target_properties(SympowKernels::kernels PROPERTIES
    IMPORTED_LOCATION "${_sympow_kernels_prefix}/lib/libsympow_kernels.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "CXX"
    INTERFACE_INCLUDE_DIRECTORIES "${_sympow_kernels_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m;stdc++")
  add_library(SympowKernels::shared SHARED IMPORTED)
  set_target_properties(SympowKernels::shared PROPERTIES
    IMPORTED_LOCATION "${_sympow_kernels_prefix}/lib/libsympow_kernels.so"
    IMPORTED_SONAME "libsympow_kernels.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_sympow_kernels_prefix}/include")
endif()
set(SympowKernels_VARIANTS)" +
         variants + ")\nset(SympowKernels_FOUND TRUE)\n";
}

} // namespace

llvm::Error sympow::aot::writeLibrary(const std::vector<ModuleBuild> &modules,
                                      llvm::StringRef outDir) {
  llvm::SmallString<256> out(outDir);
  if (std::error_code ec = llvm::sys::fs::make_absolute(out))
    return fail("cannot make " + outDir + " absolute: " + ec.message());
  std::string lib = join(out, "lib"), include = join(out, "include"),
              build = join(out, "build"),
              cmake = join(join(join(lib, "cmake"), "SympowKernels"), "");
  for (const std::string &dir : {lib, include, build, cmake})
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return fail("cannot create " + dir + ": " + ec.message());

  // The API for users; the registry's layout only for building it.
  if (llvm::Error e = copyFile(join(kRuntimeIncludeDir, "sympow_kernels.h"),
                               join(include, "sympow_kernels.h")))
    return e;
  if (llvm::Error e =
          copyFile(join(kRuntimeIncludeDir, "sympow_kernels_registry.h"),
                   join(build, "sympow_kernels_registry.h")))
    return e;

  llvm::Expected<std::string> source = registrySource(modules, out);
  if (!source)
    return source.takeError();
  std::string registryC = join(build, "sympow_kernels_registry.c"),
              registryO = join(build, "sympow_kernels_registry.o");
  if (llvm::Error e = writeFile(registryC, *source))
    return e;
  llvm::Expected<std::string> cc = findCompiler("CC", {"cc", "gcc", "clang"});
  if (!cc)
    return cc.takeError();
  if (llvm::Error e = run(*cc, {"-c", "-fPIC", "-O1", "-I", include, "-I",
                                build, registryC, "-o", registryO}))
    return e;

  std::string archive = join(lib, "libsympow_kernels.a");
  if (llvm::Error e = writeStaticLibrary(archive, registryO))
    return e;

  std::string exports = join(build, "exports.map");
  if (llvm::Error e = writeFile(exports, "{ global: sympow_*; local: *; };\n"))
    return e;
  llvm::Expected<std::string> cxx =
      findCompiler("CXX", {"c++", "g++", "clang++"});
  if (!cxx)
    return cxx.takeError();
  if (llvm::Error e = run(
          *cxx, {"-shared", "-o", join(lib, "libsympow_kernels.so"),
                 "-Wl,-soname,libsympow_kernels.so", "-Wl,--whole-archive",
                 archive, "-Wl,--no-whole-archive",
                 "-Wl,--version-script=" + exports, "-pthread", "-ldl", "-lm"}))
    return e;
  return writeFile(join(cmake, "SympowKernelsConfig.cmake"),
                   cmakeConfig(modules));
}

llvm::Expected<std::string>
sympow::aot::createStaging(llvm::StringRef outDir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create " + outDir + ": " + ec.message());
  // A run that was killed left its staging folder: removed once that
  // process is gone (the library folder itself was never touched).
  {
    std::vector<std::string> stale;
    std::error_code ec;
    llvm::StringRef prefix = ".sympow-aot-staging-";
    for (llvm::sys::fs::directory_iterator it(outDir, ec), end;
         it != end && !ec; it.increment(ec)) {
      llvm::StringRef name = llvm::sys::path::filename(it->path());
      if (!name.starts_with(prefix))
        continue;
      llvm::StringRef digits = name.drop_front(prefix.size());
      digits = digits.take_while([](char c) { return c >= '0' && c <= '9'; });
      long long pid = 0;
      if (digits.empty() || digits.getAsInteger(10, pid) || pid <= 0 ||
          pid == ::getpid())
        continue;
      if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
        stale.push_back(it->path());
    }
    for (const std::string &path : stale)
      (void)llvm::sys::fs::remove_directories(path, /*IgnoreErrors=*/true);
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string staging =
        join(outDir, ".sympow-aot-staging-" + std::to_string(::getpid()) +
                         (attempt ? "-" + std::to_string(attempt) : ""));
    std::error_code ec =
        llvm::sys::fs::create_directory(staging, /*IgnoreExisting=*/false);
    if (!ec)
      return staging;
    if (ec != std::errc::file_exists)
      return fail("cannot create " + staging + ": " + ec.message());
  }
  return fail("cannot create a staging folder in " + outDir);
}

void sympow::aot::removeStaging(llvm::StringRef staging) {
  (void)llvm::sys::fs::remove_directories(staging, /*IgnoreErrors=*/true);
}

llvm::Error sympow::aot::commitStaging(llvm::StringRef staging,
                                       llvm::StringRef outDir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(staging, ec), end;
       it != end && !ec; it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  if (ec) {
    removeStaging(staging);
    return fail("cannot read " + staging + ": " + ec.message());
  }
  std::sort(names.begin(), names.end());
  std::string old = staging.str() + ".old";
  removeStaging(old);
  if (std::error_code e = llvm::sys::fs::create_directory(old)) {
    removeStaging(staging);
    return fail("cannot create " + old + ": " + e.message());
  }
  // Per entry: whether the old one was moved aside, whether the new one is in.
  std::vector<std::pair<bool, bool>> done;
  auto rollback = [&] {
    for (size_t i = done.size(); i-- > 0;) {
      std::string target = join(outDir, names[i]);
      if (done[i].second)
        (void)llvm::sys::fs::rename(target, join(staging, names[i]));
      if (done[i].first)
        (void)llvm::sys::fs::rename(join(old, names[i]), target);
    }
  };
  for (const std::string &name : names) {
    std::string target = join(outDir, name);
    done.push_back({false, false});
    if (llvm::sys::fs::exists(target)) {
      if (std::error_code e =
              llvm::sys::fs::rename(target, join(old, name))) {
        rollback();
        removeStaging(staging);
        removeStaging(old);
        return fail("cannot replace " + target + ": " + e.message() +
                    "; the folder is as it was");
      }
      done.back().first = true;
    }
    if (std::error_code e = llvm::sys::fs::rename(join(staging, name), target)) {
      rollback();
      removeStaging(staging);
      removeStaging(old);
      return fail("cannot move " + name + " into " + outDir + ": " +
                  e.message() + "; the folder is as it was");
    }
    done.back().second = true;
  }
  removeStaging(staging);
  removeStaging(old);
  return llvm::Error::success();
}
