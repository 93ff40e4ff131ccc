//===- AttentionKernel.cpp - The attention-formulation gpu.func -----------===//
//
// One block computes BT queries of one query head against every key j <= i,
// walking key tiles from the diagonal back to the start of the sequence.
// Gates and angle counts are taken relative to the token before the block's
// first query (q0 - 1): G'_t = G_t - G_{q0-1}, c'_t = c_t - c_{q0-1}. Both
// cancel in G_i - G_j and c_i - c_j, need no scan over the whole prefix, and
// stay small near the diagonal where the weights are large; c' is carried in
// f64 and every angle is reduced modulo 2*pi in f64 before cos/sin in f32.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/GPU/AttentionKernel.h"

#include "Emitter.h"
#include "KernelCommon.h"
#include "MmaTiles.h"

#include "sympow/Support/GpuLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cassert>
#include <cmath>
#include <numeric>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {
namespace {

using gpu_detail::kTwoPi;

using gpu_detail::elementType;
using gpu_detail::workgroupMemRef;

/// Everything both paths share: arguments, ids, and the small workgroup
/// arrays of gate prefixes (pg), angle-count prefixes (pc) and rates (theta).
struct Kernel {
  const AttentionKernelSpec &spec;
  Emitter &E;
  Type elem;
  int64_t bt, nt, r;
  Value q, k, v, logG, logGamma, beta, y;
  Value T, bIdx, hq, h, q0, qt, tid;
  Value pg, pc, theta;
  Value gammaH;                    // log_gamma[h], f32
  unsigned relativeTableIndex = 0; // workgroup attribution of the cos table
  Value stageG, stageC;            // one tile's gates / betas, as loaded

  bool hasGates() const { return spec.gate != GateKind::None; }
  bool absoluteRotation() const {
    return spec.rotates() && !spec.relativeSchedule();
  }
};

//===----------------------------------------------------------------------===//
// Pieces shared by both paths
//===----------------------------------------------------------------------===//

/// Flat offset of element [b, t, head, 0] of a [B, T, heads, dim] tensor.
Value rowOffset(Kernel &K, Value t, int64_t heads, Value head, int64_t dim) {
  Emitter &E = K.E;
  Value bt = E.add(E.mul(K.bIdx, K.T), t);
  return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(dim));
}

/// t clamped into [0, T) so that masked loads stay in bounds.
Value clampToken(Kernel &K, Value t) {
  return K.E.min(t, K.E.sub(K.T, K.E.idx(1)));
}

/// (log_g[b, t, h] + log_gamma[h]) log2 e, saturated at kLogGateFloor first,
/// 0 past the end.
Value gateAt(Kernel &K, Value t) {
  Emitter &E = K.E;
  Value g = E.f32(0.0);
  if (K.spec.hasLogG())
    g = E.load(K.logG, {rowOffset(K, clampToken(K, t), K.spec.h, K.h, 1)});
  if (K.spec.hasLogGamma())
    g = E.add(g, K.gammaH);
  g = E.max(g, E.f32(sympow::gpu_detail::kLogGateFloor));
  // In base 2 (times log2 e), as the log weights (logWeight).
  return E.select(E.ult(t, K.T), E.mul(g, E.f32(M_LOG2E)), E.f32(0.0));
}

/// beta[b, t, h] in f64, 0 past the end.
Value betaAt(Kernel &K, Value t) {
  Emitter &E = K.E;
  Value x = E.load(K.beta, {rowOffset(K, clampToken(K, t), K.spec.h, K.h, 1)});
  return E.select(E.ult(t, K.T), E.convert(x, E.b.getF64Type()), E.f64(0.0));
}

/// Inclusive prefix sums of the gates (pg, f32) and of beta (pc, f64) over
/// the tile starting at k0, one thread per token; ends with a barrier.
void emitTilePrefix(Kernel &K, Value k0) {
  Emitter &E = K.E;
  bool gates = K.hasGates(), learned = K.spec.hasBeta();
  if (!gates && !learned)
    return;
  Value inTile = E.ult(K.tid, E.idx(K.bt));
  // One coalesced load per token into workgroup memory ...
  E.ifThen(inTile, [&] {
    Value t = E.add(k0, K.tid);
    if (gates)
      E.store(gateAt(K, t), K.stageG, {K.tid});
    if (learned)
      E.store(betaAt(K, t), K.stageC, {K.tid});
  });
  gpu::BarrierOp::create(E.b, E.loc);
  E.ifThen(inTile, [&] {
    SmallVector<Value> inits;
    if (gates)
      inits.push_back(E.f32(0.0));
    if (learned)
      inits.push_back(E.f64(0.0));
    // ... then serial sums from it: BT adds per thread, cheap next to the
    // tile's BT x BT x d products, and exact in the order of summation.
    auto sums =
        E.forLoop(E.idx(0), E.add(K.tid, E.idx(1)), E.idx(1), inits,
                  [&](Value s, ValueRange acc) {
                    SmallVector<Value> next;
                    unsigned i = 0;
                    if (gates)
                      next.push_back(E.add(acc[i++], E.load(K.stageG, {s})));
                    if (learned)
                      next.push_back(E.add(acc[i++], E.load(K.stageC, {s})));
                    return next;
                  });
    unsigned i = 0;
    if (gates)
      E.store(sums[i++], K.pg, {K.tid});
    if (learned)
      E.store(sums[i++], K.pc, {K.tid});
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// The tile's total gate (f32) or beta (f64) sum, after emitTilePrefix.
Value tileTotal(Kernel &K, Value prefix) {
  return K.E.load(prefix, {K.E.idx(K.bt - 1)});
}

/// c'_t for token k0 + row: the angle count relative to c_{q0-1}.
Value anglePrime(Kernel &K, Value k0, Value row, Value ccTile) {
  Emitter &E = K.E;
  if (K.spec.schedule == ScheduleKind::Uniform) // c_t = t + 1
    return E.indexToF64(E.sub(E.add(E.add(k0, row), E.idx(1)), K.q0));
  return E.sub(E.load(K.pc, {row}), ccTile);
}

/// G'_j of tile row j; a null cgTile is the diagonal tile's 0.
Value gatePrime(Kernel &K, Value row, Value cgTile) {
  Value g = K.E.load(K.pg, {row});
  return cgTile ? K.E.sub(g, cgTile) : g;
}

/// cos and sin (f32) of angle count `c` (f64) times rate `theta` (f64),
/// reduced in f64 to [-pi, pi]. On that range the approximate sin/cos
/// (afn: sin.approx/cos.approx, absolute error < 2^-20) are well within the
/// 1e-5 rad contract, and they avoid libdevice's large-argument reduction,
/// whose local-memory table made ptxas spill.
std::pair<Value, Value> rotation(Kernel &K, Value c, Value theta) {
  Emitter &E = K.E;
  Value alpha = E.mul(c, theta);
  Value turns = E.floor(E.fma(alpha, E.f64(1.0 / kTwoPi), E.f64(0.5)));
  Value reduced = E.fma(turns, E.f64(-kTwoPi), alpha);
  Value a32 = E.convert(reduced, E.b.getF32Type());
  auto afn = arith::FastMathFlags::afn;
  return {math::CosOp::create(E.b, E.loc, a32, afn),
          math::SinOp::create(E.b, E.loc, a32, afn)};
}

/// theta[m] = rate_scale * base^(-2m/r) for m < r/2, in f64; no barrier
/// (the first tile prefix or load barrier publishes it).
void emitThetaTable(Kernel &K) {
  Emitter &E = K.E;
  if (!K.spec.rotates())
    return;
  double logBase = std::log(K.spec.rotaryBase);
  int64_t half = K.r / 2;
  E.forLoop(K.tid, E.idx(half), E.idx(K.nt), {}, [&](Value m, ValueRange) {
    Value frac = E.mul(E.indexToF64(m), E.f64(-2.0 * logBase / K.r));
    E.store(E.mul(E.f64(K.spec.rateScale), E.exp(frac)), K.theta, {m});
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// Copies rows [t0, t0 + BT) of a [B, T, heads, dim] tensor into the
/// workgroup tile `dst` ([BT][>= dim]), converted to dst's element type,
/// zero past T. With `rotate`, pair m of row r is turned by c'(r) * theta_m
/// (the absolute schedules); the pairs follow the rotary layout.
void emitLoadTile(Kernel &K, Value src, int64_t heads, Value head, int64_t dim,
                  Value t0, Value dst, bool rotate, Value ccTile,
                  Value buf = {}, Value dstLo = {}) {
  Emitter &E = K.E;
  Type dstElem = cast<MemRefType>(dst.getType()).getElementType();
  Type f32 = E.b.getF32Type();
  int64_t pairs = dim / 2, half = K.r / 2;
  bool halfLayout = rotate && K.spec.layout == RotaryLayout::Half;
  E.forLoop(K.tid, E.idx(K.bt * pairs), E.idx(K.nt), {},
            [&](Value item, ValueRange) {
              Value row = E.div(item, E.idx(pairs));
              Value m = E.rem(item, E.idx(pairs));
              Value a = E.mul(m, E.idx(2)), bd = E.add(a, E.idx(1));
              Value rotated = E.ult(m, E.idx(half));
              if (halfLayout) { // pairs (m, m + r/2) below r/2, then (2m, 2m+1)
                a = E.select(rotated, m, a);
                bd = E.select(rotated, E.add(m, E.idx(half)), bd);
              }
              Value t = E.add(t0, row);
              Value valid = E.ult(t, K.T);
              Value base = rowOffset(K, clampToken(K, t), heads, head, dim);
              Value zero = E.f32(0.0);
              Value xa = E.select(
                  valid, E.convert(E.load(src, {E.add(base, a)}), f32), zero);
              Value xb = E.select(
                  valid, E.convert(E.load(src, {E.add(base, bd)}), f32), zero);
              if (rotate) {
                Value c = anglePrime(K, t0, row, ccTile);
                Value theta = E.load(K.theta, {E.min(m, E.idx(half - 1))});
                auto [cs, sn] = rotation(K, c, theta);
                if (half < pairs) { // pairs past r/2 pass through
                  cs = E.select(rotated, cs, E.f32(1.0));
                  sn = E.select(rotated, sn, zero);
                }
                Value ya = E.sub(E.mul(xa, cs), E.mul(xb, sn));
                Value yb = E.add(E.mul(xa, sn), E.mul(xb, cs));
                xa = ya;
                xb = yb;
              }
              auto at = [&](Value col) {
                return buf ? SmallVector<Value>{buf, row, col}
                           : SmallVector<Value>{row, col};
              };
              // With dstLo, x = hi + lo: lo keeps what rounding hi lost.
              for (auto [x, col] : {std::pair{xa, a}, std::pair{xb, bd}}) {
                Value hi = E.convert(x, dstElem);
                E.store(hi, dst, at(col));
                if (dstLo)
                  E.store(E.convert(E.sub(x, E.convert(hi, f32)), dstElem),
                          dstLo, at(col));
              }
              return SmallVector<Value>{};
            });
}

/// The tile copy of emitLoadTile without conversion or rotation, as cp.async
/// (nvgpu.device_async_copy) of 16-byte chunks, zero-filled past T; returns
/// the group token to wait on. Rows start 16-byte aligned because dim is a
/// multiple of 8 elements (buffers must be 16-byte aligned, docs/KernelABI.md).
Value emitAsyncLoadTile(Kernel &K, Value src, int64_t heads, Value head,
                        int64_t dim, Value t0, Value dst, Value buf) {
  Emitter &E = K.E;
  int64_t chunks = dim / 8, items = K.bt * chunks;
  assert(items % K.nt == 0 && "every thread copies the same number of chunks");
  MLIRContext *ctx = E.b.getContext();
  Type tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  SmallVector<Value> tokens;
  for (int64_t i = 0; i < items / K.nt; ++i) {
    Value item = E.add(K.tid, E.idx(i * K.nt));
    Value row = E.div(item, E.idx(chunks));
    Value col = E.mul(E.rem(item, E.idx(chunks)), E.idx(8));
    Value t = E.add(t0, row);
    Value base = rowOffset(K, clampToken(K, t), heads, head, dim);
    Value srcElems = E.select(E.ult(t, K.T), E.idx(8), E.idx(0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        E.b, E.loc, tokenType, dst, ValueRange{buf, row, col}, src,
        ValueRange{E.add(base, col)}, E.b.getIndexAttr(8), srcElems,
        E.b.getUnitAttr()));
  }
  return nvgpu::DeviceAsyncCreateGroupOp::create(E.b, E.loc, tokenType, tokens);
}

/// Waits for every cp.async this thread issued (an empty group carries the
/// token the wait op needs; wait_group 0 waits for all groups).
void waitAllAsync(Kernel &K) {
  MLIRContext *ctx = K.E.b.getContext();
  Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
      K.E.b, K.E.loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  nvgpu::DeviceAsyncWaitOp::create(K.E.b, K.E.loc, group,
                                   K.E.b.getI32IntegerAttr(0));
}

/// Butterfly sum over `lanes` adjacent lanes (a power of two <= 32).
Value laneSum(Kernel &K, Value x, int64_t lanes) {
  for (int64_t off = lanes / 2; off >= 1; off /= 2) {
    auto shfl = gpu::ShuffleOp::create(K.E.b, K.E.loc, x, off, 32,
                                       gpu::ShuffleMode::XOR);
    x = K.E.add(x, shfl.getShuffleResult());
  }
  return x;
}

Value laneMax(Kernel &K, Value x, int64_t lanes) {
  for (int64_t off = lanes / 2; off >= 1; off /= 2) {
    auto shfl = gpu::ShuffleOp::create(K.E.b, K.E.loc, x, off, 32,
                                       gpu::ShuffleMode::XOR);
    x = K.E.max(x, shfl.getShuffleResult());
  }
  return x;
}

/// A query row's part of its log weights, once per row: p log2|scale| +
/// G'_i (`gi`, null without gates).
Value rowLogWeight(Kernel &K, Value gi) {
  Value scale = K.E.f32(static_cast<double>(K.spec.p) *
                        std::log2(std::abs(K.spec.effectiveScale())));
  return gi ? K.E.add(gi, scale) : scale;
}

/// Log-space weight in base 2, p log2|scale s| + G'_i - G'_j (the gates are
/// in base 2 already: gateAt), from the row's part `row` (rowLogWeight):
/// one fma on the hardware's log2, subnormals flushed (a |s| below 2^-126
/// weighs 0, as a weight below 2^-126 of the row's largest: exp2Flush);
/// -inf where masked. |s| = 0 gives -inf (weight 0), never NaN. The
/// weights are then 2^(lw - m).
Value logWeight(Kernel &K, Value s, Value row, Value col, Value cgTile,
                Value masked) {
  Emitter &E = K.E;
  Value rest = K.hasGates() ? E.sub(row, gatePrime(K, col, cgTile)) : row;
  Value lw =
      E.fma(E.f32(static_cast<double>(K.spec.p)), E.log2Flush(E.abs(s)), rest);
  if (masked)
    lw = E.select(masked, E.f32(-INFINITY), lw);
  return lw;
}

/// The running maximum update: returns (m_new, shift) where shift is the
/// value subtracted before exp (0 while everything is -inf, so that exp
/// gives 0 and never NaN).
std::pair<Value, Value> newMax(Kernel &K, Value m, Value candidate) {
  Emitter &E = K.E;
  Value mNew = E.max(m, candidate);
  Value empty = E.cmpf(arith::CmpFPredicate::OEQ, mNew, E.f32(-INFINITY));
  return {mNew, E.select(empty, E.f32(0.0), mNew)};
}

/// Index of the per-feature carries at the front of a tile loop's state.
struct Carries {
  bool gates, learned;
  unsigned count() const { return gates + learned; }
};

/// Loop over the off-diagonal key tiles kt = qt-1 .. 0. `tileBody` gets
/// (k0, cgTile, ccTile, state) after the prefix and load barriers and
/// returns the new state.
SmallVector<Value> emitOffDiagonalTiles(
    Kernel &K, SmallVector<Value> state,
    llvm::function_ref<void(Value k0, Value ccTile, Value it)> load,
    llvm::function_ref<SmallVector<Value>(Value k0, Value cgTile,
                                          ValueRange state, Value it)>
        tileBody) {
  Emitter &E = K.E;
  Carries cr{K.hasGates(), K.spec.hasBeta()};
  SmallVector<Value> inits;
  if (cr.gates)
    inits.push_back(E.f32(0.0));
  if (cr.learned)
    inits.push_back(E.f64(0.0));
  llvm::append_range(inits, state);
  auto results = E.forLoop(
      E.idx(0), K.qt, E.idx(1), inits, [&](Value it, ValueRange args) {
        Value kt = E.sub(E.sub(K.qt, E.idx(1)), it);
        Value k0 = E.mul(kt, E.idx(K.bt));
        // The previous tile's readers must be done with pg/pc/K/V.
        gpu::BarrierOp::create(E.b, E.loc);
        emitTilePrefix(K, k0);
        SmallVector<Value> next;
        unsigned i = 0;
        Value cgTile, ccTile;
        if (cr.gates) {
          cgTile = E.add(args[i++], tileTotal(K, K.pg));
          next.push_back(cgTile);
        }
        if (cr.learned) {
          ccTile = E.add(args[i++], tileTotal(K, K.pc));
          next.push_back(ccTile);
        }
        load(k0, ccTile, it);
        gpu::BarrierOp::create(E.b, E.loc);
        llvm::append_range(next, tileBody(k0, cgTile, args.drop_front(i), it));
        return next;
      });
  return SmallVector<Value>(results.begin() + cr.count(), results.end());
}

//===----------------------------------------------------------------------===//
// Scalar path: f32 FMA, TPR threads per query row
//===----------------------------------------------------------------------===//

void emitScalarBody(Kernel &K) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  int64_t tpr = attentionThreadsPerRow(s);
  int64_t slots = s.d / 2 / tpr, outSlots = s.e / tpr;
  int64_t rotSlots = K.r / 2 / tpr; // relative schedules: rotated slots
  bool relative = s.relativeSchedule();
  auto fn = cast<gpu::GPUFuncOp>(E.b.getBlock()->getParentOp());
  Value kTile = fn.getWorkgroupAttributions()[0];
  Value vTile = fn.getWorkgroupAttributions()[1];

  Value part = E.rem(K.tid, E.idx(tpr));
  Value row = E.div(K.tid, E.idx(tpr));

  // Slot s holds pair m = s*TPR + part; relative schedules pair dims by the
  // rotary layout, the others may use any pairing (no rotation in the dot).
  SmallVector<Value> dimA, dimB;
  for (int64_t sl = 0; sl < slots; ++sl) {
    Value m = E.add(E.idx(sl * tpr), part);
    if (relative && sl < rotSlots && s.layout == RotaryLayout::Half) {
      dimA.push_back(m);
      dimB.push_back(E.add(m, E.idx(K.r / 2)));
    } else {
      dimA.push_back(E.mul(m, E.idx(2)));
      dimB.push_back(E.add(E.mul(m, E.idx(2)), E.idx(1)));
    }
  }
  SmallVector<Value> outDim;
  for (int64_t sl = 0; sl < outSlots; ++sl)
    outDim.push_back(E.add(E.idx(sl * tpr), part));

  // Diagonal tile: prefixes, then Q through the K tile into registers.
  emitTilePrefix(K, K.q0);
  Value gi = rowLogWeight(K, K.hasGates() ? E.load(K.pg, {row}) : Value());
  Value zeroCc = s.hasBeta() ? E.f64(0.0) : Value();
  emitLoadTile(K, K.q, s.hq, K.hq, s.d, K.q0, kTile, K.absoluteRotation(),
               zeroCc);
  gpu::BarrierOp::create(E.b, E.loc);
  SmallVector<Value> qa, qb;
  for (int64_t sl = 0; sl < slots; ++sl) {
    qa.push_back(E.load(kTile, {row, dimA[sl]}));
    qb.push_back(E.load(kTile, {row, dimB[sl]}));
  }
  gpu::BarrierOp::create(E.b, E.loc);

  // Warped/blend angle count of age a = i - j (a >= 0), in f64.
  auto relativeCount = [&](Value age) -> Value {
    Value L = E.f64(static_cast<double>(s.length));
    if (s.schedule == ScheduleKind::Warped)
      return E.div(E.mul(L, age), E.add(age, L));
    Value compressed = E.add(L, E.div(E.mul(L, E.sub(age, L)), age));
    return E.select(E.cmpf(arith::CmpFPredicate::OLT, age, L), age, compressed);
  };

  // Warped/blend: a (query tile, key tile) pair sees only 2*BT - 1 ages,
  // (q0 - k0) + idx - (BT - 1) for idx = row - j + BT - 1, so cos and sin of
  // w(age) * theta_m are tabulated once per key tile instead of per
  // (query, key, pair). Masked (negative) ages use age 0.
  Value cosTable, sinTable;
  if (relative) {
    cosTable = fn.getWorkgroupAttributions()[K.relativeTableIndex];
    sinTable = fn.getWorkgroupAttributions()[K.relativeTableIndex + 1];
  }
  auto emitRelativeTable = [&](Value k0) {
    int64_t half = K.r / 2, ages = 2 * K.bt - 1;
    E.forLoop(K.tid, E.idx(ages * half), E.idx(K.nt), {},
              [&](Value item, ValueRange) {
                Value idx = E.div(item, E.idx(half));
                Value m = E.rem(item, E.idx(half));
                Value age = E.indexToF64(
                    E.sub(E.add(K.q0, idx), E.add(k0, E.idx(K.bt - 1))));
                Value count = relativeCount(E.max(age, E.f64(0.0)));
                auto [cs, sn] = rotation(K, count, E.load(K.theta, {m}));
                E.store(cs, cosTable, {idx, m});
                E.store(sn, sinTable, {idx, m});
                return SmallVector<Value>{};
              });
  };

  auto loadKV = [&](Value k0, Value ccTile, Value) {
    emitLoadTile(K, K.k, s.h, K.h, s.d, k0, kTile, K.absoluteRotation(),
                 ccTile);
    emitLoadTile(K, K.v, s.h, K.h, s.e, k0, vTile, false, Value());
    if (relative)
      emitRelativeTable(k0);
  };

  // State: m, den, acc[outSlots].
  // Keys go in chunks of `chunk`: one running-max update and one rescale of
  // the accumulators per chunk instead of per key.
  int64_t chunk = std::gcd<int64_t>(K.bt, 8);
  auto processTile = [&](Value k0, Value cgTile, ValueRange state,
                         bool diagonal) {
    // The log-space weight of key j of the tile.
    auto keyWeight = [&](Value j) {
      Value ageIdx;
      if (relative)
        ageIdx = E.sub(E.add(row, E.idx(K.bt - 1)), j);
      Value dot = E.f32(0.0);
      for (int64_t sl = 0; sl < slots; ++sl) {
        Value ka = E.load(kTile, {j, dimA[sl]});
        Value kb = E.load(kTile, {j, dimB[sl]});
        if (relative && sl < rotSlots) {
          // (R(w) q).k = cos(qa ka + qb kb) + sin(qa kb - qb ka)
          Value m = E.add(E.idx(sl * tpr), part);
          Value cs = E.load(cosTable, {ageIdx, m});
          Value sn = E.load(sinTable, {ageIdx, m});
          Value same = E.fma(qa[sl], ka, E.mul(qb[sl], kb));
          Value cross = E.fma(qa[sl], kb, E.neg(E.mul(qb[sl], ka)));
          dot = E.fma(cs, same, E.fma(sn, cross, dot));
        } else {
          dot = E.fma(qa[sl], ka, dot);
          dot = E.fma(qb[sl], kb, dot);
        }
      }
      dot = laneSum(K, dot, tpr);
      Value masked;
      if (diagonal)
        masked = E.cmpi(arith::CmpIPredicate::ugt, j, row);
      return logWeight(K, dot, gi, j, cgTile, masked);
    };
    return E.forLoop(E.idx(0), E.idx(K.bt), E.idx(chunk), state,
                     [&](Value j0, ValueRange st) {
                       SmallVector<Value> lw, keys;
                       Value chunkMax = E.f32(-INFINITY);
                       for (int64_t c = 0; c < chunk; ++c) {
                         keys.push_back(E.add(j0, E.idx(c)));
                         lw.push_back(keyWeight(keys.back()));
                         chunkMax = E.max(chunkMax, lw.back());
                       }
                       auto [mNew, shift] = newMax(K, st[0], chunkMax);
                       Value corr = E.exp2Approx(E.sub(st[0], shift));
                       SmallVector<Value> next{mNew, E.mul(st[1], corr)};
                       for (int64_t sl = 0; sl < outSlots; ++sl)
                         next.push_back(E.mul(st[2 + sl], corr));
                       for (int64_t c = 0; c < chunk; ++c) {
                         Value w = E.exp2Flush(E.sub(lw[c], shift));
                         next[1] = E.add(next[1], w);
                         for (int64_t sl = 0; sl < outSlots; ++sl)
                           next[2 + sl] =
                               E.fma(w, E.load(vTile, {keys[c], outDim[sl]}),
                                     next[2 + sl]);
                       }
                       return next;
                     });
  };

  loadKV(K.q0, zeroCc, Value());
  gpu::BarrierOp::create(E.b, E.loc);
  SmallVector<Value> state{E.f32(-INFINITY), E.f32(0.0)};
  for (int64_t sl = 0; sl < outSlots; ++sl)
    state.push_back(E.f32(0.0));
  state = processTile(K.q0, Value(), state, /*diagonal=*/true);
  state = emitOffDiagonalTiles(
      K, state, loadKV, [&](Value k0, Value cgTile, ValueRange st, Value) {
        return processTile(k0, cgTile, st, /*diagonal=*/false);
      });

  // y = num / den, 0 where den = 0.
  Value i = E.add(K.q0, row);
  E.ifThen(E.ult(i, K.T), [&] {
    Value den = state[1];
    Value pos = E.cmpf(arith::CmpFPredicate::OGT, den, E.f32(0.0));
    Value inv = E.select(pos, E.div(E.f32(1.0), den), E.f32(0.0));
    Value base = rowOffset(K, i, s.hq, K.hq, s.e);
    for (int64_t sl = 0; sl < outSlots; ++sl)
      E.store(E.convert(E.mul(state[2 + sl], inv), K.elem), K.y,
              {E.add(base, outDim[sl])});
  });
}

//===----------------------------------------------------------------------===//
// Tensor-core path: ldmatrix + mma.sync m16n8k16, one warp per 16 queries
//===----------------------------------------------------------------------===//

void emitMmaBody(Kernel &K) {
  Emitter &E = K.E;
  OpBuilder &b = E.b;
  Location loc = E.loc;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = b.getF32Type();
  auto fn = cast<gpu::GPUFuncOp>(b.getBlock()->getParentOp());
  Value kTile = fn.getWorkgroupAttributions()[0];
  Value vTile = fn.getWorkgroupAttributions()[1];
  int64_t sTiles = K.bt / 8, kSteps = s.d / 16, oTiles = s.e / 8,
          pSteps = K.bt / 16;
  Value warp = E.div(K.tid, E.idx(32));
  gpu_detail::MmaTiles M(E, K.elem, E.rem(K.tid, E.idx(32)));
  Value t2 = M.t2;
  Value warpRow = E.mul(warp, E.idx(16));
  Value rows[2] = {E.add(warpRow, M.row(0)), E.add(warpRow, M.row(1))};
  auto mma = [&](Value a, Value bm, Value c) { return M.mma(a, bm, c); };
  // With two buffers, the cp.async copies of key tile kt-1 run while tile kt
  // is computed (FlashAttention-2's pipelining); the diagonal tile and
  // Q use buffer 0.
  bool twoBuffers = attentionTileBuffers(s) == 2;
  Value buf0 = E.idx(0);

  // Diagonal tile: prefixes, Q through the K tile into A fragments.
  emitTilePrefix(K, K.q0);
  Value gi[2];
  for (int ri = 0; ri < 2; ++ri)
    gi[ri] = rowLogWeight(K, K.hasGates() ? E.load(K.pg, {rows[ri]}) : Value());
  Value zeroCc = s.hasBeta() ? E.f64(0.0) : Value();
  // Tiles that need no rotation go through cp.async (no register staging).
  bool asyncQK = !K.absoluteRotation();
  // Rotated bf16 Q and K as hi + lo (the lo parts in kLoTile).
  bool split = attentionSplitsRotatedTiles(s);
  Value kLoTile = split ? Value(fn.getWorkgroupAttributions().back()) : Value();
  if (asyncQK) {
    emitAsyncLoadTile(K, K.q, s.hq, K.hq, s.d, K.q0, kTile, buf0);
    waitAllAsync(K);
  } else {
    emitLoadTile(K, K.q, s.hq, K.hq, s.d, K.q0, kTile, K.absoluteRotation(),
                 zeroCc, buf0, kLoTile);
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> qFrag, qFragLo;
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    qFrag.push_back(M.loadA(kTile, warpRow, E.idx(ks * 16), {buf0}));
    if (split)
      qFragLo.push_back(M.loadA(kLoTile, warpRow, E.idx(ks * 16), {buf0}));
  }
  gpu::BarrierOp::create(b, loc);

  // The cp.async part of a key tile: V, and K when it needs no rotation.
  auto issueAsyncKV = [&](Value k0, Value buf) {
    emitAsyncLoadTile(K, K.v, s.h, K.h, s.e, k0, vTile, buf);
    if (asyncQK)
      emitAsyncLoadTile(K, K.k, s.h, K.h, s.d, k0, kTile, buf);
  };
  // Buffer of off-diagonal iteration `it` (the diagonal tile used 0).
  auto bufferOf = [&](Value it) {
    return twoBuffers ? E.rem(E.add(it, E.idx(1)), E.idx(2)) : buf0;
  };
  auto loadKV = [&](Value k0, Value ccTile, Value it) {
    Value buf = it ? bufferOf(it) : buf0;
    if (!twoBuffers || !it) // else issued while the previous tile computed
      issueAsyncKV(k0, buf);
    // V's copy is in flight while K is rotated.
    if (!asyncQK)
      emitLoadTile(K, K.k, s.h, K.h, s.d, k0, kTile, true, ccTile, buf,
                   kLoTile);
    waitAllAsync(K);
  };
  // After the barrier that ends tile kt's loads: copy tile kt-1 into the
  // other buffer, whose last readers finished before that barrier.
  auto prefetchPrevious = [&](Value k0, Value buf) {
    if (!twoBuffers)
      return;
    E.ifThen(E.cmpi(arith::CmpIPredicate::ugt, k0, E.idx(0)), [&] {
      issueAsyncKV(E.sub(k0, E.idx(K.bt)), E.sub(E.idx(1), buf));
    });
  };

  Value zeroC = M.zero();

  // State: m[2], den[2] (this thread's part of the row sums), O[oTiles].
  auto processTile = [&](Value buf, Value cgTile, ValueRange st,
                         bool diagonal) {
    SmallVector<Value> sAcc;
    for (int64_t nt = 0; nt < sTiles; ++nt) {
      Value acc = zeroC;
      for (int64_t ks = 0; ks < kSteps; ++ks) {
        Value bf = M.loadB(kTile, E.idx(nt * 8), E.idx(ks * 16), {buf});
        acc = mma(qFrag[ks], bf, acc);
        if (split) { // hi.lo + lo.hi; lo.lo is below bf16's resolution
          Value bfLo = M.loadB(kLoTile, E.idx(nt * 8), E.idx(ks * 16), {buf});
          acc = mma(qFrag[ks], bfLo, acc);
          acc = mma(qFragLo[ks], bf, acc);
        }
      }
      sAcc.push_back(acc);
    }
    // lw[nt][ri][ci] for row rows[ri], column nt*8 + t2 + ci.
    SmallVector<Value> lw(sTiles * 4);
    Value rowMax[2] = {E.f32(-INFINITY), E.f32(-INFINITY)};
    for (int64_t nt = 0; nt < sTiles; ++nt)
      for (int ci = 0; ci < 2; ++ci) {
        Value col = E.add(E.idx(nt * 8 + ci), t2);
        for (int ri = 0; ri < 2; ++ri) {
          Value sv = vector::ExtractOp::create(b, loc, sAcc[nt],
                                               ArrayRef<int64_t>{ri, ci});
          Value masked;
          if (diagonal)
            masked = E.cmpi(arith::CmpIPredicate::ugt, col, rows[ri]);
          Value w = logWeight(K, sv, gi[ri], col, cgTile, masked);
          lw[nt * 4 + ri * 2 + ci] = w;
          rowMax[ri] = E.max(rowMax[ri], w);
        }
      }
    SmallVector<Value> next(st.begin(), st.end());
    Value corr[2], shift[2];
    for (int ri = 0; ri < 2; ++ri) {
      auto [mNew, sh] = newMax(K, st[ri], laneMax(K, rowMax[ri], 4));
      corr[ri] = E.exp2Approx(E.sub(st[ri], sh));
      shift[ri] = sh;
      next[ri] = mNew;
    }
    Value rowSum[2] = {E.f32(0.0), E.f32(0.0)};
    SmallVector<Value> pv(sTiles * 4);
    for (int64_t i = 0; i < sTiles * 4; ++i) {
      int ri = (i / 2) % 2;
      // P enters P.V rounded to the input type; the denominator sums the
      // same rounded weights, so y stays a convex combination of v rows.
      pv[i] = E.convert(E.exp2Flush(E.sub(lw[i], shift[ri])), K.elem);
      rowSum[ri] = E.add(rowSum[ri], E.convert(pv[i], f32));
    }
    for (int ri = 0; ri < 2; ++ri)
      next[2 + ri] = E.fma(st[2 + ri], corr[ri], rowSum[ri]);
    Value corrVec = vector::FromElementsOp::create(
        b, loc, M.fragC, ValueRange{corr[0], corr[0], corr[1], corr[1]});
    for (int64_t ot = 0; ot < oTiles; ++ot)
      next[4 + ot] = E.mul(st[4 + ot], corrVec);
    // P (the S accumulator layout of two n-tiles) is the A fragment of P.V.
    for (int64_t ps = 0; ps < pSteps; ++ps) {
      SmallVector<Value> elems;
      for (int64_t i = 0; i < 8; ++i)
        elems.push_back(pv[ps * 8 + i]);
      Value pa = vector::FromElementsOp::create(b, loc, M.fragA, elems);
      for (int64_t ot = 0; ot < oTiles; ++ot) {
        Value bf = M.loadBTrans(vTile, E.idx(ps * 16), E.idx(ot * 8), {buf});
        next[4 + ot] = mma(pa, bf, next[4 + ot]);
      }
    }
    return next;
  };

  loadKV(K.q0, zeroCc, Value());
  gpu::BarrierOp::create(b, loc);
  prefetchPrevious(K.q0, buf0);
  SmallVector<Value> state{E.f32(-INFINITY), E.f32(-INFINITY), E.f32(0.0),
                           E.f32(0.0)};
  for (int64_t ot = 0; ot < oTiles; ++ot)
    state.push_back(zeroC);
  state = processTile(buf0, Value(), state, /*diagonal=*/true);
  state = emitOffDiagonalTiles(
      K, state, loadKV, [&](Value k0, Value cgTile, ValueRange st, Value it) {
        Value buf = bufferOf(it);
        prefetchPrevious(k0, buf);
        return processTile(buf, cgTile, st, /*diagonal=*/false);
      });

  // y = O / den with den summed over the 4 lanes of each row.
  for (int ri = 0; ri < 2; ++ri) {
    Value den = laneSum(K, state[2 + ri], 4);
    Value pos = E.cmpf(arith::CmpFPredicate::OGT, den, E.f32(0.0));
    Value inv = E.select(pos, E.div(E.f32(1.0), den), E.f32(0.0));
    Value i = E.add(K.q0, rows[ri]);
    E.ifThen(E.ult(i, K.T), [&] {
      Value base = rowOffset(K, i, s.hq, K.hq, s.e);
      for (int64_t ot = 0; ot < oTiles; ++ot)
        for (int ci = 0; ci < 2; ++ci) {
          Value o = vector::ExtractOp::create(b, loc, state[4 + ot],
                                              ArrayRef<int64_t>{ri, ci});
          Value col = E.add(E.idx(ot * 8 + ci), t2);
          E.store(E.convert(E.mul(o, inv), K.elem), K.y, {E.add(base, col)});
        }
    });
  }
}

} // namespace

gpu::GPUFuncOp buildAttentionKernel(OpBuilder &builder, gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &spec,
                                    StringRef name) {
  OpBuilder::InsertionGuard guard(builder);
  MLIRContext *ctx = builder.getContext();
  Location loc = module.getLoc();
  if (attentionTileOf(spec)) {
    if (failed(buildAttentionTile(builder, module, spec)))
      llvm::report_fatal_error("attention: the tile lowering failed");
    auto fn = module.lookupSymbol<gpu::GPUFuncOp>(
        runtime::kernelName(runtime::KernelId::Attention));
    fn.setName(name);
    return fn;
  }
  builder.setInsertionPointToEnd(module.getBody());

  Type elem = elementType(ctx, spec.dtype);
  Type f32 = builder.getF32Type(), f64 = builder.getF64Type();
  // q, k, v, ...: the arguments of the kernel outside the attention
  // formulation's tile path, whose rotating layers read rotate_qk's halves
  // (a spec with path=scalar or another block reaches here rotating only
  // through --sympow-build-attention-kernel; a layer library refuses it).
  gpu_detail::KernelArguments args =
      gpu_detail::kernelArguments(ctx, spec, runtime::KernelId::Attention, 0,
                                  runtime::Formulation::Chunked);

  bool mmaPath = spec.resolvedPath() == AttentionPath::Mma;
  int64_t bt = spec.resolvedBlockTokens();
  int64_t r = spec.effectiveRotaryDims();
  Type tileElem = mmaPath ? elem : f32;
  int64_t pad = mmaPath ? 8 : 0; // keeps ldmatrix rows off one bank
  SmallVector<Type> workgroup;
  if (mmaPath) { // [buffers][BT][dim + pad]
    int64_t nb = attentionTileBuffers(spec);
    workgroup.push_back(workgroupMemRef({nb, bt, spec.d + pad}, tileElem));
    workgroup.push_back(workgroupMemRef({nb, bt, spec.e + pad}, tileElem));
  } else {
    workgroup.push_back(workgroupMemRef({bt, spec.d}, tileElem));
    workgroup.push_back(workgroupMemRef({bt, spec.e}, tileElem));
  }
  if (spec.gate != GateKind::None)
    workgroup.push_back(workgroupMemRef({bt}, f32));
  if (spec.hasBeta())
    workgroup.push_back(workgroupMemRef({bt}, f64));
  if (r)
    workgroup.push_back(workgroupMemRef({r / 2}, f64));
  if (spec.relativeSchedule()) // cos, sin tables; +1 keeps rows off one bank
    for (int i = 0; i < 2; ++i)
      workgroup.push_back(workgroupMemRef({2 * bt - 1, r / 2 + 1}, f32));
  if (spec.gate != GateKind::None) // staging of the tile prefixes
    workgroup.push_back(workgroupMemRef({bt}, f32));
  if (spec.hasBeta())
    workgroup.push_back(workgroupMemRef({bt}, f64));
  if (attentionSplitsRotatedTiles(spec)) // lo parts of rotated Q/K (last)
    workgroup.push_back(workgroupMemRef(
        {attentionTileBuffers(spec), bt, spec.d + pad}, tileElem));

  auto fn = gpu::GPUFuncOp::create(
      builder, loc, name, builder.getFunctionType(args.types, {}), workgroup);
  gpu_detail::setLaunch(builder, fn, spec.threadsPerBlock(), bt, spec.hq,
                        attentionBlocksPerSM(mmaPath, spec.rotates()));

  builder.setInsertionPointToStart(&fn.getBody().front());
  Emitter E(builder, loc);
  Kernel K{spec, E, elem, bt, spec.threadsPerBlock(), r};
  using runtime::KernelArg;
  K.q = args.get(fn, KernelArg::Q);
  K.k = args.get(fn, KernelArg::K);
  K.v = args.get(fn, KernelArg::V);
  K.logG = args.get(fn, KernelArg::LogG);
  K.logGamma = args.get(fn, KernelArg::LogGamma);
  K.beta = args.get(fn, KernelArg::Beta);
  K.y = args.get(fn, KernelArg::Y);
  K.T = args.seqLen(builder, fn); // B: the grid's z extent already says it
  unsigned w = 2;
  if (spec.gate != GateKind::None)
    K.pg = fn.getWorkgroupAttributions()[w++];
  if (spec.hasBeta())
    K.pc = fn.getWorkgroupAttributions()[w++];
  if (r)
    K.theta = fn.getWorkgroupAttributions()[w++];
  K.relativeTableIndex = w;
  if (spec.relativeSchedule())
    w += 2;
  if (spec.gate != GateKind::None)
    K.stageG = fn.getWorkgroupAttributions()[w++];
  if (spec.hasBeta())
    K.stageC = fn.getWorkgroupAttributions()[w++];

  K.tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  K.qt = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  K.hq = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::y);
  K.bIdx = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::z);
  K.h = E.div(K.hq, E.idx(spec.hq / spec.h));
  K.q0 = E.mul(K.qt, E.idx(bt));
  if (spec.hasLogGamma())
    K.gammaH = E.load(K.logGamma, {K.h});

  emitThetaTable(K);
  if (mmaPath)
    emitMmaBody(K);
  else
    emitScalarBody(K);
  gpu::ReturnOp::create(builder, loc);
  return fn;
}

} // namespace sympow
