//===- Layer.cpp - Running a layer's generated kernels --------------------===//
//
// The argument lists here mirror the kernel generators in compiler/lib/GPU;
// test/EndToEnd runs both against the reference, so a mismatch fails there.
//
//===----------------------------------------------------------------------===//

#include "sympow/Runtime/Layer.h"
#include "sympow/Support/Bytes.h"
#include "sympow/Support/ChunkStatePass.h"
#include "sympow/Support/RecurrentSplit.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace sympow;
using namespace sympow::runtime;

int64_t LayerVariant::stateDim() const {
  return symmetricPowerDim(d, p).value_or(-1);
}

std::optional<ChunkStatePass> LayerVariant::chunkStatePass() const {
  return sympow::chunkStatePass(p, d, e, chunk, dtype == DType::F32 ? 4 : 2,
                                dtype == DType::F16, rotates());
}

std::optional<ChunkOutputTile> LayerVariant::chunkOutputTile() const {
  return sympow::chunkOutputTile(chunk, p, d, e, dtype == DType::F16, rotates(),
                                 chunkStatePass().has_value());
}

std::optional<AttentionTile> LayerVariant::attentionTile() const {
  return sympow::attentionTile(dtype != DType::F32, rotates(),
                               relativeSchedule(), d, e);
}

bool LayerVariant::rotatesOperandsOnce() const {
  return formulation == Formulation::Attention && rotates() &&
         attentionTile().has_value();
}

namespace {

/// Up to four kernels, without allocating (launchLayer's hot path).
struct Kernels {
  std::array<KernelId, 4> ids{};
  size_t size = 0;
  void add(KernelId id) { ids[size++] = id; }
  const KernelId *begin() const { return ids.data(); }
  const KernelId *end() const { return ids.data() + size; }
};

Kernels kernelsOf(const LayerVariant &v) {
  Kernels k;
  switch (v.formulation) {
  case Formulation::Attention:
    // q and k rotated once (hi + lo halves) rather than in every program
    // that reads them.
    if (v.rotatesOperandsOnce()) {
      k.add(KernelId::ChunkCounts);
      k.add(KernelId::RotateQK);
    }
    k.add(KernelId::Attention);
    break;
  case Formulation::Recurrent:
    k.add(KernelId::RecurrentState);
    k.add(KernelId::RecurrentOutput);
    break;
  case Formulation::Chunked:
    if (v.rotates())
      k.add(KernelId::ChunkCounts);
    if (v.chunkStatePass()) {
      // The keys rotated once (f32) rather than in each of the pass's
      // programs of rows.
      if (v.rotates())
        k.add(KernelId::ChunkKeys);
      k.add(KernelId::ChunkStatePass);
    } else {
      k.add(KernelId::ChunkStates);
      k.add(KernelId::ChunkScan);
    }
    k.add(KernelId::ChunkOutput);
    break;
  }
  return k;
}

/// The most buffers a kernel takes: recurrent_state with both gates and
/// beta (q, k, v, log_g, log_gamma, beta, S, Z, c, num, den, y, arrivals).
constexpr size_t kMaxKernelBuffers = 13;

/// Up to kMaxKernelBuffers buffer arguments, without allocating.
struct KernelArgs {
  std::array<KernelArg, kMaxKernelBuffers> args{};
  size_t size = 0;
  void add(std::initializer_list<KernelArg> more) {
    for (KernelArg a : more) {
      if (size == args.size()) { // a new kernel's list, never a call's input
        std::fprintf(stderr, "sympow: more than kMaxKernelBuffers buffers\n");
        std::abort();
      }
      args[size++] = a;
    }
  }
  const KernelArg *begin() const { return args.data(); }
  const KernelArg *end() const { return args.data() + size; }
};

KernelArgs kernelArgsOf(const LayerVariant &v, KernelId kernel) {
  using A = KernelArg;
  KernelArgs args;
  auto gates = [&] {
    if (v.hasLogG())
      args.add({A::LogG});
    if (v.hasLogGamma())
      args.add({A::LogGamma});
  };
  auto counts = [&] {
    if (v.rotates())
      args.add({A::Counts});
  };
  // From chunk_state_pass to chunk_output: the tile kernel's halves.
  auto chunkStates = [&] {
    if (v.chunkOutputTile())
      args.add({A::ChunkStateHalves});
    else
      args.add({A::ChunkS, A::ChunkZ});
  };
  switch (kernel) {
  case KernelId::Attention:
    if (v.rotatesOperandsOnce()) {
      args.add({A::RotatedQHalves, A::RotatedKHalves, A::V});
      gates();
      args.add({A::Y});
      break;
    }
    [[fallthrough]];
  case KernelId::RecurrentState:
  case KernelId::RecurrentOutput:
    args.add({A::Q, A::K, A::V});
    gates();
    if (v.hasBeta())
      args.add({A::Beta});
    // recurrent_state writes y itself at T = 1 (its last program per
    // state reduces the partial sums; recurrent_output runs for T > 1).
    if (kernel == KernelId::RecurrentState)
      args.add(
          {A::S, A::Z, A::C, A::PartialNum, A::PartialDen, A::Y, A::Arrivals});
    else
      args.add({A::Y});
    if (kernel == KernelId::RecurrentOutput)
      args.add({A::C, A::PartialNum, A::PartialDen});
    break;
  case KernelId::ChunkCounts:
    if (v.hasBeta())
      args.add({A::Beta});
    args.add({A::Counts});
    // The attention formulation has no state: its counts start at 0.
    if (v.formulation != Formulation::Attention)
      args.add({A::C});
    break;
  case KernelId::RotateQK:
    args.add({A::Q, A::K, A::Counts, A::RotatedQHalves, A::RotatedKHalves});
    break;
  case KernelId::ChunkStates:
    args.add({A::K, A::V});
    gates();
    counts();
    args.add({A::ChunkS, A::ChunkZ, A::Decay});
    break;
  case KernelId::ChunkKeys:
    args.add({A::K, A::Counts, A::RotatedK});
    break;
  case KernelId::ChunkStatePass:
    args.add({v.rotates() ? A::RotatedK : A::K, A::V});
    gates();
    counts();
    args.add({A::S, A::Z, A::C});
    chunkStates();
    break;
  case KernelId::ChunkScan:
    args.add({A::S, A::Z, A::C});
    counts();
    args.add({A::ChunkS, A::ChunkZ, A::Decay});
    break;
  case KernelId::ChunkOutput:
    // The tile kernel reads the keys chunk_keys rotated (f32).
    args.add(
        {A::Q, v.rotates() && v.chunkOutputTile() ? A::RotatedK : A::K, A::V});
    gates();
    counts();
    chunkStates();
    args.add({A::Y});
    break;
  }
  return args;
}

} // namespace

const char *sympow::runtime::formulationName(Formulation formulation) {
  switch (formulation) {
  case Formulation::Attention:
    return "attention";
  case Formulation::Chunked:
    return "chunked";
  case Formulation::Recurrent:
    return "recurrent";
  }
  return "?";
}

const char *sympow::runtime::kernelName(KernelId kernel) {
  switch (kernel) {
  case KernelId::Attention:
    return "attention";
  case KernelId::RecurrentState:
    return "recurrent_state";
  case KernelId::RecurrentOutput:
    return "recurrent_output";
  case KernelId::ChunkCounts:
    return "chunk_counts";
  case KernelId::ChunkKeys:
    return "chunk_keys";
  case KernelId::ChunkStatePass:
    return "chunk_state_pass";
  case KernelId::ChunkStates:
    return "chunk_states";
  case KernelId::ChunkScan:
    return "chunk_scan";
  case KernelId::ChunkOutput:
    return "chunk_output";
  case KernelId::RotateQK:
    return "rotate_qk";
  }
  return "?";
}

std::optional<KernelId> sympow::runtime::kernelIdNamed(std::string_view name) {
  for (int i = 0; i < kKernelIdCount; ++i)
    if (name == kernelName(KernelId(i)))
      return KernelId(i);
  return std::nullopt;
}

std::vector<KernelId> sympow::runtime::layerKernels(const LayerVariant &v) {
  Kernels k = kernelsOf(v);
  return std::vector<KernelId>(k.begin(), k.end());
}

std::vector<std::string>
sympow::runtime::layerKernelNames(const LayerVariant &v) {
  std::vector<std::string> names;
  for (KernelId id : kernelsOf(v))
    names.push_back(kernelName(id));
  return names;
}

bool sympow::runtime::launchesKernel(KernelId kernel, int64_t T) {
  return !(kernel == KernelId::RecurrentOutput &&
           T == kTokensStateKernelFinishes);
}

std::vector<std::string>
sympow::runtime::launchedKernelNames(const LayerVariant &v, int64_t T) {
  std::vector<std::string> names;
  for (KernelId id : kernelsOf(v))
    if (launchesKernel(id, T))
      names.push_back(kernelName(id));
  return names;
}

std::vector<KernelArg>
sympow::runtime::layerKernelArguments(const LayerVariant &v, KernelId kernel) {
  KernelArgs args = kernelArgsOf(v, kernel);
  return std::vector<KernelArg>(args.begin(), args.end());
}

std::vector<KernelArg>
sympow::runtime::layerKernelArguments(const LayerVariant &v,
                                      std::string_view kernel) {
  std::optional<KernelId> id = kernelIdNamed(kernel);
  if (!id)
    return {};
  return layerKernelArguments(v, *id);
}

const char *sympow::runtime::kernelArgName(KernelArg arg) {
  switch (arg) {
  case KernelArg::Q:
    return "q";
  case KernelArg::K:
    return "k";
  case KernelArg::V:
    return "v";
  case KernelArg::LogG:
    return "log_g";
  case KernelArg::LogGamma:
    return "log_gamma";
  case KernelArg::Beta:
    return "beta";
  case KernelArg::Y:
    return "y";
  case KernelArg::S:
    return "S";
  case KernelArg::Z:
    return "Z";
  case KernelArg::C:
    return "c";
  case KernelArg::Counts:
    return "counts";
  case KernelArg::ChunkS:
    return "dS";
  case KernelArg::ChunkZ:
    return "dZ";
  case KernelArg::Decay:
    return "decay";
  case KernelArg::PartialNum:
    return "num";
  case KernelArg::PartialDen:
    return "den";
  case KernelArg::RotatedK:
    return "k_rotated";
  case KernelArg::ChunkStateHalves:
    return "dS_halves";
  case KernelArg::RotatedQHalves:
    return "q_rotated_halves";
  case KernelArg::RotatedKHalves:
    return "k_rotated_halves";
  case KernelArg::Arrivals:
    return "arrivals";
  }
  return "?";
}

namespace {

/// Where the chunked and recurrent formulations' scratch lives in the
/// workspace. Sizes saturate (Bytes.h): a total of kTooManyBytes means the
/// call is too large for any workspace.
struct Workspace {
  size_t counts = 0, states = 0, norms = 0, decays = 0;
  size_t partialNum = 0, partialDen = 0, rotatedK = 0, stateHalves = 0;
  size_t rotatedQHalves = 0, rotatedKHalves = 0, arrivals = 0;
  int64_t programs = 0; // recurrent_state's programs per (head, sequence)
  size_t partialBytes = 4;
  size_t total = 0;
};

/// ceil(T / chunk) without overflow.
int64_t chunksOf(int64_t T, int64_t chunk) {
  return T / chunk + (T % chunk != 0);
}

Workspace layerWorkspace(const LayerVariant &v, int64_t B, int64_t T) {
  Workspace w;
  size_t at = 0;
  auto take = [&](size_t bytes) {
    size_t start = at;
    at = addBytes(at, alignBytes(bytes));
    return start;
  };
  if (v.formulation == Formulation::Recurrent) {
    // The partial sums from recurrent_state to recurrent_output, in its
    // accumulator type (f64 for f32 inputs).
    w.programs =
        recurrentSplit(v.p, v.d, v.e, v.h, v.dtype != DType::F32).programs;
    w.partialBytes = v.dtype == DType::F32 ? 8 : 4;
    // First, so that they stay at one place whatever B and T a call has
    // (a workspace sized once for the largest call): counters the kernels
    // leave ready for the next call, which need no zeroing.
    w.arrivals = take(bytesOf(sizeof(int64_t), {B, v.h}));
    w.partialNum = take(bytesOf(w.partialBytes, {B, T, v.hq, w.programs, v.e}));
    w.partialDen = take(bytesOf(w.partialBytes, {B, T, v.hq, w.programs}));
    w.total = at;
    return w;
  }
  if (v.rotatesOperandsOnce()) {
    // The counts, then q and k rotated as 16-bit hi + lo halves.
    int64_t halves = AttentionTile::halvesColumns(v.d);
    w.counts = take(bytesOf(sizeof(double), {B, T, v.h}));
    w.rotatedQHalves = take(bytesOf(2, {B, T, v.hq, halves}));
    w.rotatedKHalves = take(bytesOf(2, {B, T, v.h, halves}));
    w.total = at;
    return w;
  }
  if (v.formulation != Formulation::Chunked)
    return w;
  int64_t n = chunksOf(T, v.chunk), dim = v.stateDim();
  w.counts = take(v.rotates() ? bytesOf(sizeof(double), {B, T, v.h}) : 0);
  // The chunk states: f32 dS and dZ, or the tile chunk_output's halves.
  bool halves = v.chunkOutputTile().has_value();
  w.states = take(halves ? 0 : bytesOf(sizeof(float), {B, n, v.h, dim, v.e}));
  w.norms = take(halves ? 0 : bytesOf(sizeof(float), {B, n, v.h, dim}));
  w.stateHalves =
      take(halves ? bytesOf(2, {B, n, v.h,
                                ChunkOutputTile::stateSlotElements(dim, v.e)})
                  : 0);
  // Each chunk's log decay, from chunk_states to chunk_scan only.
  w.decays = take(v.chunkStatePass() ? 0 : bytesOf(sizeof(float), {B, n, v.h}));
  // The rotated keys, from chunk_keys to chunk_state_pass only.
  w.rotatedK = take(v.chunkStatePass() && v.rotates()
                        ? bytesOf(sizeof(float), {B, T, v.h, v.d})
                        : 0);
  w.total = at;
  return w;
}

std::string callShape(int64_t B, int64_t T) {
  return "B = " + std::to_string(B) + ", T = " + std::to_string(T);
}

Status checkVariant(const LayerVariant &v) {
  if (v.p < 2 || v.p % 2)
    return Status::error("power p = " + std::to_string(v.p) +
                         " is not supported: p must be an even integer >= 2");
  if (v.d < 1 || v.e < 1)
    return Status::error("head dims must be positive");
  if (v.h < 1 || v.hq < 1 || v.hq % v.h)
    return Status::error("query heads Hq = " + std::to_string(v.hq) +
                         " must be a positive multiple of the key/value "
                         "heads H = " +
                         std::to_string(v.h));
  if (v.relativeSchedule() && v.formulation != Formulation::Attention)
    return Status::error("the warped and blend schedules have no recurrent "
                         "form: only the attention formulation runs them");
  if (v.formulation == Formulation::Chunked && v.chunk < 1)
    return Status::error("the chunked formulation needs a chunk size >= 1");
  return Status::success();
}

/// One kernel's packed parameters: buffers as memref descriptors, then B, T.
class Params {
public:
  void buffer(DevicePtr ptr, int64_t elements) {
    Descriptor &d = descriptors[buffers++];
    d = {ptr, ptr, 0, elements, 1};
    for (void *field :
         {static_cast<void *>(&d.allocated), static_cast<void *>(&d.aligned),
          static_cast<void *>(&d.offset), static_cast<void *>(&d.size),
          static_cast<void *>(&d.stride)})
      params[count++] = field;
  }
  void **finish(int64_t *B, int64_t *T) {
    params[count++] = B;
    params[count++] = T;
    return params.data();
  }

private:
  struct Descriptor {
    uint64_t allocated, aligned;
    int64_t offset, size, stride;
  };
  std::array<Descriptor, kMaxKernelBuffers> descriptors;
  std::array<void *, kMaxKernelBuffers * 5 + 2> params;
  size_t buffers = 0, count = 0;
};

} // namespace

Status sympow::runtime::checkCallShape(int64_t B, int64_t T) {
  if (B < 1 || T < 0)
    return Status::error("B must be >= 1 and T >= 0, got " + callShape(B, T));
  return Status::success();
}

Status sympow::runtime::unaddressableWorkspace(int64_t B, int64_t T) {
  return Status::error("a call with " + callShape(B, T) +
                       " needs more workspace than memory can address");
}

Result<size_t> sympow::runtime::layerWorkspaceBytes(const LayerVariant &variant,
                                                    int64_t B, int64_t T) {
  if (Status s = checkCallShape(B, T); s.isError())
    return s;
  size_t total = layerWorkspace(variant, B, T).total;
  if (total == kTooManyBytes)
    return unaddressableWorkspace(B, T);
  return total;
}

Status sympow::runtime::launchLayer(Backend &backend, KernelLibrary &library,
                                    const LayerVariant &v,
                                    const LayerBuffers &buf, int64_t B,
                                    int64_t T, DevicePtr workspace,
                                    size_t workspaceBytes, void *stream) {
  if (Status s = checkVariant(v); s.isError())
    return s;
  if (Status s = checkCallShape(B, T); s.isError())
    return s;
  // Every element count below must fit int64; the workspace's are bounded
  // by its checked total.
  if (bytesOf(sizeof(double), {B, T, v.hq, std::max(v.d, v.e)}) > INT64_MAX ||
      bytesOf(sizeof(float), {B, v.h, v.stateDim(), v.e}) > INT64_MAX)
    return Status::error("a call with " + callShape(B, T) +
                         " has tensors larger than memory can address");
  Kernels kernels = kernelsOf(v);
  if (library.size() != kernels.size)
    return Status::error("the kernel library holds " +
                         std::to_string(library.size()) + " kernels, the " +
                         "formulation needs " + std::to_string(kernels.size));
  for (size_t i = 0; i < kernels.size; ++i)
    if (library.info(i).name != kernelName(kernels.ids[i]))
      return Status::error("kernel " + std::to_string(i) +
                           " of the library "
                           "is '" +
                           library.info(i).name + "', expected '" +
                           kernelName(kernels.ids[i]) + "'");

  // Every buffer the variant reads or writes must be there.
  bool state = v.formulation != Formulation::Attention;
  struct Required {
    const char *name;
    DevicePtr ptr;
    bool needed;
  } required[] = {{"q", buf.q, true},
                  {"k", buf.k, true},
                  {"v", buf.v, true},
                  {"y", buf.y, true},
                  {"log_g", buf.logG, v.hasLogG()},
                  {"log_gamma", buf.logGamma, v.hasLogGamma()},
                  {"beta", buf.beta, v.hasBeta()},
                  {"S", buf.s, state},
                  {"Z", buf.z, state},
                  {"c", buf.c, state}};
  for (const Required &r : required)
    if (r.needed && !r.ptr)
      return Status::error(std::string("buffer '") + r.name +
                           "' is null; the variant needs it");
  Workspace w = layerWorkspace(v, B, T);
  if (w.total == kTooManyBytes)
    return unaddressableWorkspace(B, T);
  if (w.total && (!workspace || workspaceBytes < w.total))
    return Status::error("the workspace has " + std::to_string(workspaceBytes) +
                         " bytes; this call needs " + std::to_string(w.total) +
                         " (layerWorkspaceBytes)");
  if (T == 0)
    return Status::success(); // nothing to compute, the state stays

  int64_t n = v.chunk ? chunksOf(T, v.chunk) : 0, dim = v.stateDim();
  int64_t tokens = B * T;
  // Where each argument lives and how many elements it has.
  auto locate = [&](KernelArg arg) -> std::pair<DevicePtr, int64_t> {
    switch (arg) {
    case KernelArg::Q:
      return {buf.q, tokens * v.hq * v.d};
    case KernelArg::K:
      return {buf.k, tokens * v.h * v.d};
    case KernelArg::V:
      return {buf.v, tokens * v.h * v.e};
    case KernelArg::LogG:
      return {buf.logG, tokens * v.h};
    case KernelArg::LogGamma:
      return {buf.logGamma, v.h};
    case KernelArg::Beta:
      return {buf.beta, tokens * v.h};
    case KernelArg::Y:
      return {buf.y, tokens * v.hq * v.e};
    case KernelArg::S:
      return {buf.s, B * v.h * dim * v.e};
    case KernelArg::Z:
      return {buf.z, B * v.h * dim};
    case KernelArg::C:
      return {buf.c, B * v.h};
    case KernelArg::Counts:
      return {workspace + w.counts, tokens * v.h};
    case KernelArg::ChunkS:
      return {workspace + w.states, B * n * v.h * dim * v.e};
    case KernelArg::ChunkZ:
      return {workspace + w.norms, B * n * v.h * dim};
    case KernelArg::Decay:
      return {workspace + w.decays, B * n * v.h};
    case KernelArg::PartialNum:
      return {workspace + w.partialNum, tokens * v.hq * w.programs * v.e};
    case KernelArg::PartialDen:
      return {workspace + w.partialDen, tokens * v.hq * w.programs};
    case KernelArg::RotatedK:
      return {workspace + w.rotatedK, tokens * v.h * v.d};
    case KernelArg::ChunkStateHalves:
      return {workspace + w.stateHalves,
              B * n * v.h * ChunkOutputTile::stateSlotElements(dim, v.e)};
    case KernelArg::RotatedQHalves:
      return {workspace + w.rotatedQHalves,
              tokens * v.hq * AttentionTile::halvesColumns(v.d)};
    case KernelArg::RotatedKHalves:
      return {workspace + w.rotatedKHalves,
              tokens * v.h * AttentionTile::halvesColumns(v.d)};
    case KernelArg::Arrivals:
      return {workspace + w.arrivals, B * v.h};
    }
    return {0, 0};
  };

  for (size_t i = 0; i < kernels.size; ++i) {
    if (!launchesKernel(kernels.ids[i], T))
      continue;
    const char *name = kernelName(kernels.ids[i]);
    Params p;
    for (KernelArg arg : kernelArgsOf(v, kernels.ids[i])) {
      auto [ptr, elements] = locate(arg);
      p.buffer(ptr, elements);
    }
    Result<KernelHandle> kernel = library.kernel(i);
    if (kernel.isError())
      return kernel.status();
    int64_t batch = B, length = T;
    Status s =
        backend.launch(kernel.value(), library.launchConfig(i, B, T, stream),
                       p.finish(&batch, &length));
    if (s.isError())
      return Status::error(std::string(name) + ": " + s.message());
  }
  return Status::success();
}
