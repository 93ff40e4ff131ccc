//===- AttentionKernel.h - The attention-formulation gpu.func ---*- C++ -*-===//
//
// Builds the fused attention-formulation kernel of docs/SPEC.md as one
// gpu.func, specialised at compile time for one variant (p, d, e, heads,
// dtype, gates, rotary schedule). See docs/GPU.md for the algorithm and
// docs/KernelABI.md for the calling convention.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_ATTENTIONKERNEL_H
#define SYMPOW_COMPILER_GPU_ATTENTIONKERNEL_H

#include "sympow/Dialect/SympowAttrs.h"
#include "sympow/Support/AttentionTile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace sympow {

/// How the score and output products are computed.
enum class AttentionPath {
  Auto,   // the tensor-core tile kernel where it applies, else scalar
  Scalar, // the FMA kernel: f32 (full f32 accuracy; any dtype, schedule)
  Mma,    // the tile kernel: warpgroup MMAs (wgmma on sm_90a, mma.sync
          // before), f32 accumulation
};

/// One variant of the attention-formulation kernel. Everything here is a
/// compile-time constant of the generated code; B and T are run-time
/// arguments.
struct AttentionKernelSpec {
  int64_t p = 2;  // even power >= 2
  int64_t d = 64; // head dim of q and k
  int64_t e = 64; // head dim of v and y
  int64_t hq = 1; // query heads
  int64_t h = 1;  // key/value heads (hq % h == 0, GQA group hq / h)
  ElementKind dtype = ElementKind::BF16;
  GateKind gate = GateKind::None;
  ScheduleKind schedule = ScheduleKind::None;
  int64_t rotaryDims = 0; // r: 0 means d when a schedule rotates
  double rotaryBase = 10000.0;
  double rateScale = 1.0;
  RotaryLayout layout = RotaryLayout::Interleaved;
  int64_t length = 0; // L of warped/blend
  double scale = 0.0; // 0 means 1/sqrt(d)
  AttentionPath path = AttentionPath::Auto;
  int64_t blockTokens = 0; // queries (= keys) per tile; 0 picks one

  bool hasLogG() const {
    return gate == GateKind::Data || gate == GateKind::Both;
  }
  bool hasLogGamma() const {
    return gate == GateKind::Head || gate == GateKind::Both;
  }
  bool hasBeta() const { return schedule == ScheduleKind::Learned; }
  bool rotates() const { return schedule != ScheduleKind::None; }
  bool relativeSchedule() const {
    return schedule == ScheduleKind::Warped || schedule == ScheduleKind::Blend;
  }
  int64_t effectiveRotaryDims() const {
    return rotates() ? (rotaryDims ? rotaryDims : d) : 0;
  }
  double effectiveScale() const;
  /// The path after resolving Auto.
  AttentionPath resolvedPath() const;
  /// Tokens per tile after resolving 0.
  int64_t resolvedBlockTokens() const;
  /// Threads per block.
  int64_t threadsPerBlock() const;

  /// A name usable as a symbol: "p2_d64_e64_hq8_h4_bf16_gdata_learned_i".
  std::string variantName() const;
};

/// Threads that share one query row on the scalar path.
int64_t attentionThreadsPerRow(const AttentionKernelSpec &spec);
/// Workgroup memory per block, in bytes.
int64_t attentionSharedBytes(const AttentionKernelSpec &spec);

/// The checks every kernel generator shares: p, head dims, head counts,
/// rotary configuration, warp length and scale. The message says what is
/// wrong and what is allowed.
llvm::Error verifyKernelVariant(const AttentionKernelSpec &spec);

/// Checks that the spec is one the generator supports; the message says what
/// is wrong and what is allowed.
llvm::Error verifyAttentionKernelSpec(const AttentionKernelSpec &spec);

/// Parses a variant string of comma-separated key=value pairs:
/// p, d, e, hq, h, dtype (bf16|f16|f32), gate (none|head|data|both),
/// rope (none|uniform|learned|warped|blend), layout (interleaved|half),
/// r (rotated dims), base, rate_scale, L (warped/blend length), scale,
/// path (auto|scalar|mma), block (tokens per tile), formulation (attention).
/// Example: "p=2,d=64,dtype=bf16,gate=data,rope=learned,layout=interleaved".
/// Unset keys keep the defaults above (e = d, h = hq). Does not verify.
llvm::Expected<AttentionKernelSpec> parseAttentionVariant(llvm::StringRef text);

/// Emits `gpu.func @<name> kernel` into `module` following docs/KernelABI.md:
/// buffers q, k, v, [log_g], [log_gamma], [beta], y as memref<?xT>, then i64
/// B, T; grid (ceil(T / tokens), Hq, B). The spec must verify. Variants the
/// tensor-core tile kernel takes (attentionTileOf) come from it
/// (AttentionTile.cpp), the rest from the FMA kernel (AttentionFma.cpp).
mlir::gpu::GPUFuncOp buildAttentionKernel(mlir::OpBuilder &builder,
                                          mlir::gpu::GPUModuleOp module,
                                          const AttentionKernelSpec &spec,
                                          llvm::StringRef name = "attention");

/// The attention formulation's kernels into `module`, in the runtime's
/// launch order (runtime::layerKernels): a rotating layer the tile kernel
/// takes first runs chunk_counts and rotate_qk, which rotate q and k once
/// into the halves it reads; then `attention`.
void buildAttentionKernels(mlir::OpBuilder &builder,
                           mlir::gpu::GPUModuleOp module,
                           const AttentionKernelSpec &spec);

/// The tile attention kernel's split for `spec` (sympow/Support/
/// AttentionTile.h), or none: 16-bit, no relative schedule, not the scalar
/// path, and blocks of its 64 queries where the spec names a block.
std::optional<AttentionTile> attentionTileOf(const AttentionKernelSpec &spec);

/// The attention formulation in f32 FMA, a tile kernel built and lowered to
/// a plain gpu.func named "attention" (AttentionFma.cpp): f32 layers, the
/// relative schedules, and what the tensor-core kernel does not take.
mlir::LogicalResult buildAttentionFma(mlir::OpBuilder &builder,
                                      mlir::gpu::GPUModuleOp module,
                                      const AttentionKernelSpec &spec);

/// The attention formulation as a tile kernel, built and lowered to a plain
/// gpu.func named "attention"; the spec must have an attentionTileOf. A
/// rotating spec's kernel reads rotate_qk's halves instead of q and k.
mlir::LogicalResult buildAttentionTile(mlir::OpBuilder &builder,
                                       mlir::gpu::GPUModuleOp module,
                                       const AttentionKernelSpec &spec);

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_ATTENTIONKERNEL_H
