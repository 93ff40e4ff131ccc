//===- DriverTest.cpp - Compiling a layer's kernels, and the cache --------===//

#include "KernelRunner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace sympow;
using namespace sympow::e2e;

namespace {

AttentionKernelSpec smallSpec() {
  AttentionKernelSpec s;
  s.p = 2;
  s.d = 16;
  s.e = 16;
  s.hq = 2;
  s.h = 1;
  s.dtype = ElementKind::BF16;
  s.gate = GateKind::Data;
  s.schedule = ScheduleKind::Learned;
  return s;
}

/// A fresh directory for one test's cache.
std::string freshCacheDir(const char *name) {
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory(name, dir);
  return std::string(dir);
}

TEST(Driver, CudaImagesAreBuiltOnceThenComeFromTheCache) {
  std::string cache = freshCacheDir("sympow-cuda-cache");
  LayerKernelRequest request{smallSpec(), runtime::Formulation::Chunked, 16};
  auto first = compileLayerKernels(request, KernelTarget::Cuda,
                                   {"sm_80", "sm_90a"}, cache);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_FALSE((*first)->fromCache());
  ASSERT_EQ((*first)->images().size(), 4u); // cubin and PTX per arch
  EXPECT_EQ((*first)->images()[0].format, runtime::ImageFormat::Cubin);
  EXPECT_EQ((*first)->images()[1].format, runtime::ImageFormat::Ptx);
  EXPECT_EQ((*first)->images()[2].arch, "sm_90a");
  // A cubin is an ELF file.
  EXPECT_EQ(
      std::string(static_cast<const char *>((*first)->images()[0].data), 4),
      "\x7f"
      "ELF");
  // counts, rotated keys, state pass, output
  EXPECT_EQ((*first)->infos().size(), 4u);

  auto second = compileLayerKernels(request, KernelTarget::Cuda,
                                    {"sm_80", "sm_90a"}, cache);
  ASSERT_TRUE(bool(second));
  EXPECT_TRUE((*second)->fromCache());
  EXPECT_EQ(std::string(static_cast<const char *>((*second)->images()[0].data),
                        (*second)->images()[0].size),
            std::string(static_cast<const char *>((*first)->images()[0].data),
                        (*first)->images()[0].size));

  // Another variant gets other entries.
  request.spec.p = 4;
  auto other =
      compileLayerKernels(request, KernelTarget::Cuda, {"sm_80"}, cache);
  ASSERT_TRUE(bool(other));
  EXPECT_FALSE((*other)->fromCache());
  llvm::sys::fs::remove_directories(cache);
}

TEST(Driver, RefusesWhatTheGeneratorsCannotBuild) {
  AttentionKernelSpec spec = smallSpec();
  spec.schedule = ScheduleKind::Warped;
  spec.length = 8;
  LayerKernelRequest request{spec, runtime::Formulation::Recurrent, 0};
  auto compiled =
      compileLayerKernels(request, KernelTarget::EmulatorJIT, {}, "");
  ASSERT_FALSE(bool(compiled));
  EXPECT_EQ(llvm::toString(compiled.takeError()),
            "schedule 'warped' has no recurrent form: only the attention "
            "kernel computes it");
}

TEST(Driver, SharedObjectKernelsRunFromTheCache) {
  std::string cache = freshCacheDir("sympow-emulator-cache");
  AttentionKernelSpec spec = smallSpec();
  LayerCase layer = randomLayer(spec, 2, 9, 7, /*withState=*/true);
  ReferenceResult want = runReference(spec, layer);
  ASSERT_TRUE(want.error.empty()) << want.error;
  for (int round = 0; round < 2; ++round) {
    KernelResult got = runLayer(spec, runtime::Formulation::Recurrent, 0, layer,
                                KernelTarget::EmulatorShared, cache);
    ASSERT_TRUE(got.error.empty()) << got.error;
    expectMatches(got, want, spec.dtype, /*state=*/true,
                  "round " + std::to_string(round));
  }
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(cache, ec), end; it != end && !ec;
       it.increment(ec))
    files += llvm::sys::path::extension(it->path()) == ".so";
  EXPECT_EQ(files, 1);
  llvm::sys::fs::remove_directories(cache);
}

} // namespace
