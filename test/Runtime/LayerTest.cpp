//===- LayerTest.cpp - launchLayer's sequences, arguments and checks ------===//
//
// A recording backend stands in for a device: it keeps every launch's
// kernel, grid and packed parameters, so the tests see exactly what
// launchLayer would hand the driver. (The numbers the kernels compute are
// checked in test/EndToEnd.)
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/Layer.h"

#include <gtest/gtest.h>

using namespace sympow;
using namespace sympow::runtime;

namespace {

struct Launch {
  std::string kernel;
  LaunchConfig config;
  std::vector<int64_t> sizes; // descriptor sizes, in argument order
  int64_t B = 0, T = 0;
};

class RecordingBackend final : public Backend {
public:
  explicit RecordingBackend(std::vector<std::string> kernelNames)
      : kernelNames(std::move(kernelNames)) {}
  const char *name() const override { return "recording"; }
  const std::string &arch() const override { return archName; }
  Result<ModuleHandle> loadModule(const void *, size_t, ImageFormat) override {
    return static_cast<ModuleHandle>(this);
  }
  Status unloadModule(ModuleHandle) override { return Status::success(); }
  Result<KernelHandle> getKernel(ModuleHandle, const char *name) override {
    for (std::string &k : kernelNames)
      if (k == name)
        return static_cast<KernelHandle>(&k);
    return Status::error(std::string("no kernel ") + name);
  }
  Status launch(KernelHandle kernel, const LaunchConfig &config,
                void **args) override {
    Launch l{*static_cast<std::string *>(kernel), config, {}};
    // Buffers: five fields each, the fourth the size; then B and T. The
    // number of buffers is given per kernel by the test.
    size_t buffers = expectedBuffers.at(l.kernel);
    for (size_t i = 0; i < buffers; ++i)
      l.sizes.push_back(*static_cast<int64_t *>(args[i * 5 + 3]));
    l.B = *static_cast<int64_t *>(args[buffers * 5]);
    l.T = *static_cast<int64_t *>(args[buffers * 5 + 1]);
    launches.push_back(l);
    return Status::success();
  }
  Result<DevicePtr> allocate(size_t) override { return DevicePtr(0x1000); }
  Status release(DevicePtr) override { return Status::success(); }
  Status copyToDevice(DevicePtr, const void *, size_t) override {
    return Status::success();
  }
  Status copyToHost(void *, DevicePtr, size_t) override {
    return Status::success();
  }
  Status copyOnDevice(DevicePtr, DevicePtr, size_t, void *) override {
    return Status::success();
  }
  Status fillZero(DevicePtr, size_t, void *) override {
    return Status::success();
  }
  Status synchronize(void *) override { return Status::success(); }

  std::map<std::string, size_t> expectedBuffers;
  std::vector<Launch> launches;

private:
  std::vector<std::string> kernelNames;
  std::string archName = "recording";
};

LayerVariant chunkedVariant() {
  LayerVariant v;
  v.p = 2;
  v.d = 16; // D = 136
  v.e = 8;
  v.hq = 4;
  v.h = 2;
  v.gate = Gate::Data;
  v.schedule = Schedule::Learned;
  v.formulation = Formulation::Chunked;
  v.chunk = 16;
  return v;
}

std::vector<KernelInfo> infos(const LayerVariant &v) {
  std::vector<KernelInfo> list;
  for (const std::string &name : layerKernelNames(v)) {
    KernelInfo info{name, {}};
    info.launch.block = {128, 1, 1};
    info.launch.tokensPerBlock =
        name == "chunk_states" || name == "chunk_output" ? v.chunk : 0;
    info.launch.blocksX = name == "chunk_state_pass" ? 3 : 0;
    info.launch.gridY = name == "chunk_output" ? v.hq : v.h;
    list.push_back(info);
  }
  return list;
}

const char kImage[] = "image";

LayerBuffers allBuffers() {
  LayerBuffers b;
  b.q = 1, b.k = 2, b.v = 3, b.logG = 4, b.logGamma = 5, b.beta = 6, b.y = 7;
  b.s = 8, b.z = 9, b.c = 10;
  return b;
}

TEST(Layer, ChunkedF32LaunchesStatesAndScanInOrderWithTheirBuffers) {
  LayerVariant v = chunkedVariant();
  v.dtype = DType::F32; // no chunk_state_pass: the scalar kernels
  std::vector<std::string> names = layerKernelNames(v);
  ASSERT_EQ(names, (std::vector<std::string>{"chunk_counts", "chunk_states",
                                             "chunk_scan", "chunk_output"}));
  RecordingBackend backend(names);
  backend.expectedBuffers = {{"chunk_counts", 3},
                             {"chunk_states", 7},
                             {"chunk_scan", 7},
                             {"chunk_output", 8}};
  KernelLibrary library(backend, {{"recording", ImageFormat::Cubin, kImage, 6}},
                        infos(v));
  int64_t B = 3, T = 37, N = 3, D = 136;
  size_t bytes = layerWorkspaceBytes(v, B, T).value();
  // counts (f64: 1776 bytes), chunk states (f32: 78336), norms (9792) and
  // decays (72), each rounded up to 256 bytes.
  EXPECT_EQ(bytes, 1792u + 78336u + 9984u + 256u);
  Status s = launchLayer(backend, library, v, allBuffers(), B, T, 0x10000,
                         bytes, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(backend.launches.size(), 4u);
  const Launch &counts = backend.launches[0], &states = backend.launches[1],
               &scan = backend.launches[2], &output = backend.launches[3];
  EXPECT_EQ(counts.sizes, (std::vector<int64_t>{B * T * 2, B * T * 2, B * 2}));
  EXPECT_EQ(
      states.sizes,
      (std::vector<int64_t>{B * T * 2 * 16, B * T * 2 * 8, B * T * 2, B * T * 2,
                            B * N * 2 * D * 8, B * N * 2 * D, B * N * 2}));
  EXPECT_EQ(scan.sizes, (std::vector<int64_t>{B * 2 * D * 8, B * 2 * D, B * 2,
                                              B * T * 2, B * N * 2 * D * 8,
                                              B * N * 2 * D, B * N * 2}));
  EXPECT_EQ(output.sizes.back(), B * T * 4 * 8);
  EXPECT_EQ(output.config.grid.x, 3u);
  EXPECT_EQ(output.config.grid.y, 4u);
  EXPECT_EQ(output.config.grid.z, 3u);
  EXPECT_EQ(scan.config.grid.x, 1u);
  EXPECT_EQ(output.B, B);
  EXPECT_EQ(output.T, T);
}

TEST(Layer, RecurrentOneTokenLaunchesTheStateKernelAlone) {
  LayerVariant v = chunkedVariant(); // data gate, learned rotation
  v.formulation = Formulation::Recurrent;
  v.chunk = 0;
  std::vector<std::string> names = layerKernelNames(v);
  ASSERT_EQ(names,
            (std::vector<std::string>{"recurrent_state", "recurrent_output"}));
  EXPECT_EQ(launchedKernelNames(v, 1),
            (std::vector<std::string>{"recurrent_state"}));
  EXPECT_EQ(launchedKernelNames(v, 2), names);
  RecordingBackend backend(names);
  // q, k, v, log_g, beta, S, Z, c, num, den, y, arrivals; then q, k, v,
  // log_g, beta, y, c, num, den.
  backend.expectedBuffers = {{"recurrent_state", 12}, {"recurrent_output", 9}};
  KernelLibrary library(backend, {{"recording", ImageFormat::Cubin, kImage, 6}},
                        infos(v));
  int64_t B = 3;
  for (int64_t T : {1, 2}) {
    backend.launches.clear();
    size_t bytes = layerWorkspaceBytes(v, B, T).value();
    Status s = launchLayer(backend, library, v, allBuffers(), B, T, 0x10000,
                           bytes, nullptr);
    ASSERT_TRUE(s.isOk()) << s.message();
    std::vector<std::string> launched;
    for (const Launch &l : backend.launches)
      launched.push_back(l.kernel);
    EXPECT_EQ(launched, launchedKernelNames(v, T)) << "T = " << T;
    // The arrival counters, one per (sequence, head), whatever T is.
    EXPECT_EQ(backend.launches[0].sizes.back(), B * v.h);
  }
}

TEST(Layer, Chunked16BitLaunchesTheStatePassInOrderWithItsBuffers) {
  LayerVariant v = chunkedVariant(); // bf16, learned rotation
  ASSERT_TRUE(v.chunkStatePass());
  std::vector<std::string> names = layerKernelNames(v);
  ASSERT_EQ(names,
            (std::vector<std::string>{"chunk_counts", "chunk_keys",
                                      "chunk_state_pass", "chunk_output"}));
  RecordingBackend backend(names);
  backend.expectedBuffers = {{"chunk_counts", 3},
                             {"chunk_keys", 3},
                             {"chunk_state_pass", 8},
                             {"chunk_output", 7}};
  KernelLibrary library(backend, {{"recording", ImageFormat::Cubin, kImage, 6}},
                        infos(v));
  int64_t B = 3, T = 37, N = 3, D = 136;
  size_t bytes = layerWorkspaceBytes(v, B, T).value();
  // counts as for f32; the chunk states as the tile chunk_output reads
  // them (bf16 hi and lo halves of [S | Z | 0 ...], 136 rows of 16
  // columns, N = 3 chunks, 2 heads, B = 3); no decays; the rotated keys
  // (f32: 14208 bytes).
  EXPECT_EQ(bytes, 1792u + 3u * 3u * 2u * 2u * 136u * 16u * 2u + 14336u);
  Status s = launchLayer(backend, library, v, allBuffers(), B, T, 0x10000,
                         bytes, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(backend.launches.size(), 4u);
  const Launch &keys = backend.launches[1], &pass = backend.launches[2];
  // k, counts, the rotated keys.
  EXPECT_EQ(keys.sizes,
            (std::vector<int64_t>{B * T * 2 * 16, B * T * 2, B * T * 2 * 16}));
  // The rotated keys, v, log_g, counts, S, Z, c, the chunk states' halves.
  EXPECT_EQ(pass.sizes,
            (std::vector<int64_t>{B * T * 2 * 16, B * T * 2 * 8, B * T * 2,
                                  B * T * 2, B * 2 * D * 8, B * 2 * D, B * 2,
                                  B * N * 2 * 2 * D * 16}));
  EXPECT_EQ(pass.config.grid.x, 3u);
  EXPECT_EQ(pass.config.grid.y, 2u);
  EXPECT_EQ(pass.config.grid.z, 3u);
  // Without rotation: no chunk_keys, k itself.
  LayerVariant plain = v;
  plain.schedule = Schedule::None;
  EXPECT_EQ(layerKernelNames(plain),
            (std::vector<std::string>{"chunk_state_pass", "chunk_output"}));
  EXPECT_EQ(layerKernelArguments(plain, "chunk_state_pass").front(),
            KernelArg::K);
  EXPECT_EQ(layerKernelArguments(v, "chunk_state_pass").front(),
            KernelArg::RotatedK);
}

TEST(Layer, RotatingAttentionRotatesQAndKOnceBeforeItsKernel) {
  LayerVariant v = chunkedVariant(); // bf16, learned rotation, d = 16
  v.formulation = Formulation::Attention;
  v.chunk = 0;
  ASSERT_TRUE(v.rotatesOperandsOnce());
  std::vector<std::string> names = layerKernelNames(v);
  ASSERT_EQ(names, (std::vector<std::string>{"chunk_counts", "rotate_qk",
                                             "attention"}));
  RecordingBackend backend(names);
  backend.expectedBuffers = {
      {"chunk_counts", 2}, {"rotate_qk", 5}, {"attention", 5}};
  KernelLibrary library(backend, {{"recording", ImageFormat::Cubin, kImage, 6}},
                        infos(v));
  int64_t B = 3, T = 37;
  size_t bytes = layerWorkspaceBytes(v, B, T).value();
  // Counts (f64), then q and k as 2 x 16 16-bit columns a token, each
  // region aligned to 256 bytes.
  EXPECT_EQ(bytes, 1792u + 28416u + 14336u);
  Status s = launchLayer(backend, library, v, allBuffers(), B, T, 0x10000,
                         bytes, nullptr);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(backend.launches.size(), 3u);
  const Launch &counts = backend.launches[0], &rotate = backend.launches[1],
               &attention = backend.launches[2];
  // beta, counts: no state, so no c.
  EXPECT_EQ(counts.sizes, (std::vector<int64_t>{B * T * 2, B * T * 2}));
  // q, k, counts, their halves.
  EXPECT_EQ(rotate.sizes,
            (std::vector<int64_t>{B * T * 4 * 16, B * T * 2 * 16, B * T * 2,
                                  B * T * 4 * 32, B * T * 2 * 32}));
  // The halves, v, log_g, y: no beta (the angles are in the halves).
  EXPECT_EQ(attention.sizes,
            (std::vector<int64_t>{B * T * 4 * 32, B * T * 2 * 32, B * T * 2 * 8,
                                  B * T * 2, B * T * 4 * 8}));
  // Unrotated, f32, or the relative schedules: the attention kernel alone.
  for (auto change :
       {+[](LayerVariant &x) { x.schedule = Schedule::None; },
        +[](LayerVariant &x) { x.dtype = DType::F32; },
        +[](LayerVariant &x) { x.schedule = Schedule::Warped; }}) {
    LayerVariant other = v;
    change(other);
    EXPECT_FALSE(other.rotatesOperandsOnce());
    EXPECT_EQ(layerKernelNames(other), (std::vector<std::string>{"attention"}));
    EXPECT_EQ(layerWorkspaceBytes(other, B, T).value(), 0u);
  }
}

TEST(Layer, RefusesBadCallsAndLaunchesNothing) {
  LayerVariant v = chunkedVariant();
  RecordingBackend backend(layerKernelNames(v));
  KernelLibrary library(backend, {{"recording", ImageFormat::Cubin, kImage, 6}},
                        infos(v));
  size_t bytes = layerWorkspaceBytes(v, 1, 40).value();
  LayerBuffers missingBeta = allBuffers();
  missingBeta.beta = 0;
  Status s = launchLayer(backend, library, v, missingBeta, 1, 40, 0x10000,
                         bytes, nullptr);
  EXPECT_EQ(s.message(), "buffer 'beta' is null; the variant needs it");
  s = launchLayer(backend, library, v, allBuffers(), 1, 40, 0x10000, bytes - 1,
                  nullptr);
  EXPECT_EQ(s.message(), "the workspace has " + std::to_string(bytes - 1) +
                             " bytes; this call needs " +
                             std::to_string(bytes) + " (layerWorkspaceBytes)");
  LayerVariant odd = v;
  odd.p = 3;
  s = launchLayer(backend, library, odd, allBuffers(), 1, 40, 0x10000, bytes,
                  nullptr);
  EXPECT_EQ(s.message(), "power p = 3 is not supported: p must be an even "
                         "integer >= 2");
  LayerVariant warped = v;
  warped.schedule = Schedule::Warped;
  s = launchLayer(backend, library, warped, allBuffers(), 1, 40, 0x10000, bytes,
                  nullptr);
  EXPECT_EQ(s.message(), "the warped and blend schedules have no recurrent "
                         "form: only the attention formulation runs them");
  LayerVariant attention = v;
  attention.formulation = Formulation::Attention;
  s = launchLayer(backend, library, attention, allBuffers(), 1, 40, 0x10000,
                  bytes, nullptr);
  EXPECT_EQ(s.message(),
            "the kernel library holds 4 kernels, the formulation needs 3");
  s = launchLayer(backend, library, v, allBuffers(), 0, 40, 0x10000, bytes,
                  nullptr);
  EXPECT_EQ(s.message(), "B must be >= 1 and T >= 0, got B = 0, T = 40");
  // Sizes that overflow are refused, not wrapped (a fuzzer's T = 2^63 - 1).
  int64_t huge = INT64_MAX;
  s = launchLayer(backend, library, v, allBuffers(), 1, huge, 0x10000, SIZE_MAX,
                  nullptr);
  EXPECT_EQ(s.message(), "a call with B = 1, T = " + std::to_string(huge) +
                             " has tensors larger than memory can address");
  EXPECT_TRUE(backend.launches.empty());
}

TEST(Layer, WorkspaceSizeRefusesWhatCannotBeAddressed) {
  LayerVariant v = chunkedVariant();
  for (auto [B, T] : {std::pair<int64_t, int64_t>{1, INT64_MAX},
                      {INT64_MAX, 16},
                      {int64_t(1) << 40, int64_t(1) << 20}}) {
    Result<size_t> bytes = layerWorkspaceBytes(v, B, T);
    ASSERT_TRUE(bytes.isError()) << B << " " << T;
    EXPECT_EQ(bytes.message(), "a call with B = " + std::to_string(B) +
                                   ", T = " + std::to_string(T) +
                                   " needs more workspace than memory can "
                                   "address");
  }
  EXPECT_EQ(layerWorkspaceBytes(v, 0, 16).message(),
            "B must be >= 1 and T >= 0, got B = 0, T = 16");
  EXPECT_TRUE(layerWorkspaceBytes(v, 1, 0).isOk());
}

} // namespace

namespace {

TEST(Layer, KernelIdentitiesAndTheirNames) {
  // Every kernel's name maps back to it; names are the library's symbols.
  for (int i = 0; i < kKernelIdCount; ++i) {
    auto id = KernelId(i);
    std::optional<KernelId> back = kernelIdNamed(kernelName(id));
    ASSERT_TRUE(back.has_value()) << kernelName(id);
    EXPECT_EQ(*back, id);
  }
  EXPECT_EQ(kernelName(KernelId::ChunkStatePass),
            std::string("chunk_state_pass"));
  EXPECT_FALSE(kernelIdNamed("chunk_stat_pass").has_value());
  LayerVariant v = chunkedVariant();
  EXPECT_TRUE(layerKernelArguments(v, "no_such_kernel").empty());
  // The names the library is checked against are the ids' names, in order.
  std::vector<std::string> names = layerKernelNames(v);
  std::vector<KernelId> ids = layerKernels(v);
  ASSERT_EQ(names.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(names[i], kernelName(ids[i]));
    EXPECT_EQ(layerKernelArguments(v, ids[i]),
              layerKernelArguments(v, names[i]));
  }
}

} // namespace
