//===- RecurrentCommon.h - What the two recurrent kernels share -*- C++ -*-===//
//
// The recurrent formulation runs as two tile kernels (docs/TileIR.md):
// recurrent_state (RecurrentState.cpp) splits each state over programs of
// whole rows and writes partial numerators and denominators,
// recurrent_output (RecurrentOutput.cpp) reduces them into y and adds the
// window's tokens. Both see the state through the same split and build
// tiles with the same helpers.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_RECURRENTCOMMON_H
#define SYMPOW_LIB_GPU_RECURRENTCOMMON_H

#include "KernelCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/GPU/RecurrentKernel.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/RecurrentSplit.h"

namespace sympow::recurrent {

using gpu_detail::createTileKernel;
using gpu_detail::Emitter;
using gpu_detail::Tiles;
using mlir::Type;
using mlir::Value;

/// Tokens whose contributions y takes directly rather than through the
/// state (RecurrentState.cpp's header). At p = 4, d = 16, T = 33 on SPEC's
/// random data (a model of the arithmetic over 1000 sequences) W = 8 keeps
/// the f32 error below 0.013 of SPEC's bound; W = 4 reaches 0.3 and W = 1
/// fails one sequence in fifty.
constexpr int64_t kWindow = 8;

/// The high half of recurrent_state's arrival counter words
/// (sympow_tile.last_arrival's epoch): a workspace that never held one
/// counts as no arrivals, so the caller need not zero it.
constexpr int64_t kArrivalEpoch = 0x53594d50; // "SYMP"

/// The split of sympow/Support/RecurrentSplit.h for the spec.
using StateSplit = RecurrentSplit;
StateSplit stateSplit(const AttentionKernelSpec &spec);

/// f64 for f32 inputs, f32 otherwise: phi, the dot products with the state,
/// the state update, the partial sums and the window's weights.
Type accumulatorType(mlir::MLIRContext *ctx, const AttentionKernelSpec &spec);

using gpu_detail::partnerDim;
using gpu_detail::rotate;

/// Token s's log gate log_g[b, s, h] + log_gamma[h] in f64, saturated at
/// kLogGateFloor (SPEC); 0 without gates. Uniform; or, given `t` and a
/// mask, a tile whose threads outside the mask load nothing (and hold the
/// gate of 0).
Value logGate(Emitter &E, const AttentionKernelSpec &spec, Value logG,
              Value logGamma, Value b, Value T, Value h, Value s,
              Tiles *t = nullptr, Value mask = {});
/// Token s's step of the angle count: beta[b, s, h] (learned) or 1. f64.
Value countStep(Emitter &E, const AttentionKernelSpec &spec, Value beta,
                Value b, Value T, Value h, Value s);

using gpu_detail::tokenOffset;

mlir::LogicalResult buildRecurrentState(mlir::OpBuilder &b,
                                        mlir::gpu::GPUModuleOp module,
                                        const AttentionKernelSpec &spec);
/// The buffers y of a token is computed from (and c, written with the
/// sequence's last token).
struct OutputBuffers {
  Value q, k, v, logG, logGamma, beta, y, c, num, den;
  /// recurrent_state's workgroup arrays, where the tail of a decoding step
  /// (T = 1) reads its one token from (null in recurrent_output): the
  /// group's scaled, rotated queries, the rings of rotated keys, values and
  /// decays (RecurrentState.cpp). The token's q, k, v and gate are then no
  /// global loads on the last program's chain; nor is the final count c,
  /// which the program summed itself (rotating schedules).
  Value stagedQueries, stagedKeys, stagedValues, stagedDecays, stagedCount;
};
OutputBuffers outputBuffers(const gpu_detail::KernelArguments &args,
                            mlir::gpu::GPUFuncOp fn);

/// y[batch, token, hq] from the X partial sums recurrent_state left and the
/// window's tokens; with the sequence's last token and hq the first of its
/// group, the final c too. Block-wide (column sums), in uniform control
/// flow: recurrent_output's program, and at T = 1 recurrent_state's last
/// program of a state for each query head of its group.
void emitTokenOutput(Tiles &t, const AttentionKernelSpec &spec,
                     const OutputBuffers &io, Value token, Value hq,
                     Value batch, Value T);

mlir::LogicalResult buildRecurrentOutput(mlir::OpBuilder &b,
                                         mlir::gpu::GPUModuleOp module,
                                         const AttentionKernelSpec &spec);

} // namespace sympow::recurrent

#endif // SYMPOW_LIB_GPU_RECURRENTCOMMON_H
