//===- Layer.h - Running a layer's generated kernels ------------*- C++ -*-===//
//
// A layer call is a fixed sequence of kernels per formulation (see
// docs/KernelABI.md and docs/GPU.md): attention: `attention`; recurrent:
// `recurrent_state`, `recurrent_output` (only for T > 1: at T = 1
// recurrent_state's last programs write y); chunked: [`chunk_counts`], then
// for 16-bit inputs [`chunk_keys`] `chunk_state_pass`, else `chunk_states`
// + `chunk_scan`; then `chunk_output` ([...]: rotating schedules only). This
// launches them on any backend with the right buffers, after checking what it
// is given; rotating 16-bit attention runs `chunk_counts` and `rotate_qk`
// before `attention`. The kernels' launch shapes come from the compiler with
// the images (KernelLibrary), not from here.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_LAYER_H
#define SYMPOW_RUNTIME_LAYER_H

#include "sympow/Runtime/KernelLibrary.h"
#include "sympow/Support/AttentionTile.h"
#include "sympow/Support/ChunkOutputTile.h"
#include "sympow/Support/ChunkStatePass.h"

#include <optional>
#include <string_view>

#include <vector>

namespace sympow::runtime {

enum class Formulation { Attention, Chunked, Recurrent };
enum class DType { BF16, F16, F32 };
enum class Gate { None, Head, Data, Both };
enum class Schedule { None, Uniform, Learned, Warped, Blend };

/// The compile-time parameters of a layer's kernels.
struct LayerVariant {
  int64_t p = 2, d = 64, e = 64, hq = 1, h = 1;
  DType dtype = DType::BF16;
  Gate gate = Gate::None;
  Schedule schedule = Schedule::None;
  Formulation formulation = Formulation::Attention;
  int64_t chunk = 0; // chunked only

  bool hasLogG() const { return gate == Gate::Data || gate == Gate::Both; }
  bool hasLogGamma() const { return gate == Gate::Head || gate == Gate::Both; }
  bool hasBeta() const { return schedule == Schedule::Learned; }
  bool rotates() const { return schedule != Schedule::None; }
  /// The warped and blend schedules: angles of relative positions, which
  /// only the attention formulation computes.
  bool relativeSchedule() const {
    return schedule == Schedule::Warped || schedule == Schedule::Blend;
  }
  /// D = C(d + p - 1, p).
  int64_t stateDim() const;
  /// How chunk_state_pass splits the state, or none where the chunked
  /// formulation runs chunk_states + chunk_scan instead
  /// (sympow/Support/ChunkStatePass.h).
  std::optional<ChunkStatePass> chunkStatePass() const;
  /// How the 16-bit chunk_output splits a chunk, or none where the f32
  /// kernels run (sympow/Support/ChunkOutputTile.h).
  std::optional<ChunkOutputTile> chunkOutputTile() const;
  /// How the tensor-core attention kernel takes the layer, or none where the
  /// FMA kernel runs it (sympow/Support/AttentionTile.h).
  std::optional<AttentionTile> attentionTile() const;
  /// Whether the attention formulation rotates q and k once before its
  /// kernel (chunk_counts, rotate_qk): the tile kernel of a rotating layer.
  bool rotatesOperandsOnce() const;
};

/// Device buffers of one call (docs/KernelABI.md shapes); the inputs the
/// variant does not have stay 0. S, Z (f32) and c (f64) are updated in
/// place for the chunked and recurrent formulations: they hold the initial
/// state (zeros for none) and receive the final one.
struct LayerBuffers {
  DevicePtr q = 0, k = 0, v = 0, logG = 0, logGamma = 0, beta = 0, y = 0;
  DevicePtr s = 0, z = 0, c = 0;
};

/// "attention", "chunked" or "recurrent".
const char *formulationName(Formulation formulation);

/// The kernels a layer launches. Their names (kernelName) are the
/// functions' names in the kernel library and its cubins.
enum class KernelId {
  Attention,
  RecurrentState,
  RecurrentOutput,
  ChunkCounts,
  ChunkKeys,
  ChunkStatePass,
  ChunkStates,
  ChunkScan,
  ChunkOutput,
  RotateQK
};
constexpr int kKernelIdCount = int(KernelId::RotateQK) + 1;
const char *kernelName(KernelId kernel);
/// The kernel named `name`, or none.
std::optional<KernelId> kernelIdNamed(std::string_view name);

/// The kernels of the variant's formulation, in launch order (what a
/// library holds).
std::vector<KernelId> layerKernels(const LayerVariant &variant);
/// Their names.
std::vector<std::string> layerKernelNames(const LayerVariant &variant);
/// Whether a call of T tokens launches `kernel`, one of layerKernels: all
/// do except recurrent_output for one token (recurrent_state's last
/// programs reduce the partial sums themselves).
bool launchesKernel(KernelId kernel, int64_t T);
/// The names of the kernels a call of T tokens launches, in order.
std::vector<std::string> launchedKernelNames(const LayerVariant &variant,
                                             int64_t T);

/// A kernel's buffer arguments (docs/KernelABI.md): the layer's tensors,
/// and the chunked and recurrent formulations' scratch in the workspace.
enum class KernelArg {
  Q,
  K,
  V,
  LogG,
  LogGamma,
  Beta,
  Y,
  S,
  Z,
  C,
  Counts,
  ChunkS,
  ChunkZ,
  Decay,
  PartialNum,
  PartialDen,
  RotatedK,
  /// The chunk states as the tile chunk_output reads them (weighted bf16
  /// hi + lo halves, ChunkOutputTile::stateSlotElements), instead of
  /// ChunkS and ChunkZ.
  ChunkStateHalves,
  /// q and k rotated once as hi + lo halves of the input type
  /// (AttentionTile::halvesColumns per token), for the tile attention
  /// kernel.
  RotatedQHalves,
  RotatedKHalves,
  /// recurrent_state's arrival counters, one i64 per (sequence, head): at
  /// T = 1 the last of a state's programs writes y (sympow_tile.last_arrival).
  Arrivals
};

/// The buffers `kernel` of the variant takes, in order (then i64 B, T);
/// none for a name that is not a kernel of the layer.
std::vector<KernelArg> layerKernelArguments(const LayerVariant &variant,
                                            KernelId kernel);
std::vector<KernelArg> layerKernelArguments(const LayerVariant &variant,
                                            std::string_view kernel);
const char *kernelArgName(KernelArg arg);

/// An error unless B >= 1 and T >= 0.
Status checkCallShape(int64_t B, int64_t T);
/// The error of a call with B, T whose workspace memory cannot address.
Status unaddressableWorkspace(int64_t B, int64_t T);

/// Workspace bytes a call with B sequences of T tokens needs, or an error
/// when B or T is out of range or the workspace could not be addressed.
Result<size_t> layerWorkspaceBytes(const LayerVariant &variant, int64_t B,
                                   int64_t T);

/// Launches the layer's kernels on `stream` (those launchesKernel names for
/// T). `library` holds the kernels in layerKernelNames order. Checks the
/// variant, sizes and buffers first and launches nothing when they are wrong;
/// allocates nothing unless it reports an error.
Status launchLayer(Backend &backend, KernelLibrary &library,
                   const LayerVariant &variant, const LayerBuffers &buffers,
                   int64_t B, int64_t T, DevicePtr workspace,
                   size_t workspaceBytes, void *stream);

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_LAYER_H
