//===- AttentionFma.cpp - The attention formulation in f32 FMA ------------===//
//
// The attention kernel for what the tensor-core tile kernel
// (AttentionTile.cpp) does not take: f32 layers (full f32 accuracy, no
// split products), the relative schedules (warped, blend: each (query,
// key) pair turned by its own angle w(i - j), which no MMA form absorbs),
// and specs that ask for it (path=scalar, blocks other than 64).
//
// Program (x, query head, sequence) takes BT queries and walks the key
// tiles from its diagonal back to the sequence's start, FlashAttention's
// online maximum over base-2 log weights. TPR adjacent threads share a
// query row: each holds d / (2 TPR) of its rotary pairs and e / TPR of its
// outputs, and a score's partial dot products meet in a segment_reduce.
// Gates and angle counts are taken relative to the token before the
// program's first query (q0 - 1): G'_t = G_t - G_{q0-1}, c'_t = c_t -
// c_{q0-1}. Both cancel in G_i - G_j and c_i - c_j, need no scan over the
// whole prefix, and stay small near the diagonal where the weights are
// large; c' is carried in f64 and every angle is reduced modulo 2 pi in
// f64 before cos/sin in f32. The relative schedules tabulate cos and sin of
// w(age) theta_m once per key tile for the 2 BT - 1 ages it holds.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "KernelCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/GpuLimits.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {
namespace {

using gpu_detail::kTwoPi;

/// The program's view of its spec, tensors and workgroup arrays.
struct Program {
  const AttentionKernelSpec &s;
  Emitter &E;
  gpu_detail::Tiles &t;
  int64_t bt, r, tpr;
  Type elem;
  // Set by name after the spec's fields (buildAttentionFma).
  Value q = {}, k = {}, v = {}, logG = {}, logGamma = {}, beta = {}, y = {};
  Value T = {}, batch = {}, hq = {}, h = {}, q0 = {}, qt = {};
  Value kTile = {}, vTile = {}, pg = {}, pc = {}, theta = {}, cosTable = {},
        sinTable = {}, stageG = {}, stageC = {};
  Value gammaH = {}; // log_gamma[h], f32

  bool gates() const { return s.gate != GateKind::None; }
  bool learned() const { return s.hasBeta(); }
  bool absolute() const { return s.rotates() && !s.relativeSchedule(); }
  int64_t half() const { return r / 2; }

  Value f32s(double x) { return t.constant(E.b.getF32Type(), x); }
  Value f64s(double x) { return t.constant(E.b.getF64Type(), x); }
  /// An index tile as f64 (through i64, signed).
  Value toF64(Value x) {
    Value i =
        arith::IndexCastOp::create(E.b, E.loc, t.like(x, E.b.getI64Type()), x);
    return arith::SIToFPOp::create(E.b, E.loc, t.like(x, E.b.getF64Type()), i);
  }
  /// Flat offsets of [b, t0 + j, head, 0] of a [B, T, heads, dim] tensor,
  /// for an index tile j.
  Value tokenRow(Value t0, Value j, int64_t heads, Value head, int64_t dim) {
    return gpu_detail::tokenOffsets(t, batch, T, t0, j, heads, head, dim);
  }
};

/// The gate (log_g + log_gamma, saturated, times log2 e: the log weights
/// are base 2) and beta (f64) of tokens k0 + j, j < BT, into the staging
/// arrays, then their inclusive prefixes into pg and pc, in the order of
/// the tokens (each thread sums the tokens up to its own as uniform
/// values); ends with a barrier.
void emitTilePrefix(Program &K, Value k0) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  if (!K.gates() && !K.learned())
    return;
  Type f32 = E.b.getF32Type(), f64 = E.b.getF64Type();
  Value j = t.range();
  Value inTile = E.ult(j, t.index(K.bt));
  // Tokens k0 + j before T (k0 < T: a key tile starts at or before q0).
  Value count = E.min(E.idx(K.bt), E.sub(K.T, k0));
  if (K.gates()) {
    Value g = chunked::tokenGates(t, K.s, K.logG, K.gammaH, K.batch, K.T, K.h,
                                  k0, count);
    t.store(E.mul(g, t.constant(f32, M_LOG2E)), K.stageG, j, inTile);
  }
  if (K.learned()) {
    Value live = E.ult(j, t.splat(count));
    Value at = K.tokenRow(k0, j, K.s.h, K.h, 1);
    t.store(t.convert(t.load(K.beta, at, live), f64), K.stageC, j, inTile);
  }
  gpu::BarrierOp::create(E.b, E.loc);
  SmallVector<Value> inits;
  if (K.gates())
    inits.push_back(t.constant(f32, 0.0));
  if (K.learned())
    inits.push_back(t.constant(f64, 0.0));
  auto sums = E.forLoop(
      E.idx(0), E.idx(K.bt), E.idx(1), inits, [&](Value i, ValueRange acc) {
        Value upTo = E.cmpi(arith::CmpIPredicate::ule, t.splat(i), j);
        SmallVector<Value> next;
        unsigned n = 0;
        for (Value stage : {K.stageG, K.stageC}) {
          if (!stage)
            continue;
          Value x = t.splat(E.load(stage, {i}));
          next.push_back(
              E.add(acc[n],
                    E.select(upTo, x, t.constant(getElementTypeOrSelf(x), 0))));
          ++n;
        }
        return next;
      });
  unsigned n = 0;
  if (K.gates())
    t.store(sums[n++], K.pg, j, inTile);
  if (K.learned())
    t.store(sums[n++], K.pc, j, inTile);
  gpu::BarrierOp::create(E.b, E.loc);
}

/// cos and sin (f32 tiles) of angle counts `c` (f64) times rates `theta`
/// (f64), reduced in f64 to [-pi, pi]. On that range the approximate
/// sin/cos (afn: sin.approx/cos.approx, absolute error < 2^-20) are well
/// within the 1e-5 rad contract.
std::pair<Value, Value> rotation(Program &K, Value c, Value theta) {
  Emitter &E = K.E;
  Value alpha = E.mul(c, theta);
  Value turns = E.floor(E.fma(alpha, K.f64s(1.0 / kTwoPi), K.f64s(0.5)));
  Value reduced = E.fma(turns, K.f64s(-kTwoPi), alpha);
  Value a32 = K.t.convert(reduced, E.b.getF32Type());
  auto afn = arith::FastMathFlags::afn;
  return {math::CosOp::create(E.b, E.loc, a32, afn),
          math::SinOp::create(E.b, E.loc, a32, afn)};
}

/// theta[m] = rate_scale * base^(-2m/r) for m < r/2, in f64; ends with a
/// barrier.
void emitThetaTable(Program &K) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  if (!K.s.rotates())
    return;
  double logBase = std::log(K.s.rotaryBase);
  t.forEachItem(K.half(), [&](Value m, Value live) {
    Value frac = E.mul(K.toF64(m), K.f64s(-2.0 * logBase / K.r));
    t.store(E.mul(K.f64s(K.s.rateScale), E.exp(frac)), K.theta, m, live);
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// c'_t of tokens k0 + row (an index tile): the angle count relative to
/// c_{q0-1}; `ccTile` is c'_{k0-1} (learned schedules).
Value anglePrime(Program &K, Value k0, Value row, Value ccTile) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  if (K.s.schedule == ScheduleKind::Uniform) // c_t = t + 1
    return K.toF64(
        E.sub(E.add(E.add(t.splat(k0), row), t.index(1)), t.splat(K.q0)));
  return E.sub(t.load(K.pc, row, {}), t.splat(ccTile));
}

/// Rows [t0, t0 + BT) of a [B, T, heads, dim] tensor into the f32 array
/// `dst` ([BT][dim]), zero past T. With `rotate`, pair m of row r is turned
/// by c'(r) theta_m (the absolute schedules); the pairs follow the rotary
/// layout.
void emitLoadTile(Program &K, Value src, int64_t heads, Value head, int64_t dim,
                  Value t0, Value dst, bool rotate, Value ccTile) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  Type f32 = E.b.getF32Type();
  int64_t pairs = dim / 2, half = K.half();
  t.forEachItem(K.bt * pairs, [&](Value item, Value live) {
    Value row = E.div(item, t.index(pairs));
    Value m = E.rem(item, t.index(pairs));
    Value a = E.mul(m, t.index(2)), b = E.add(a, t.index(1));
    Value rotated = E.ult(m, t.index(half));
    if (rotate && K.s.layout == RotaryLayout::Half) {
      // Pairs (m, m + r/2) below r/2, then (2m, 2m + 1).
      a = E.select(rotated, m, a);
      b = E.select(rotated, E.add(m, t.index(half)), b);
    }
    Value tok = E.add(t.splat(t0), row);
    Value valid = t.logicalAnd(live, E.ult(tok, t.splat(K.T)));
    Value base = K.tokenRow(t0, row, heads, head, dim);
    Value xa = t.convert(t.load(src, E.add(base, a), valid), f32);
    Value xb = t.convert(t.load(src, E.add(base, b), valid), f32);
    if (rotate) {
      Value c = anglePrime(K, t0, row, ccTile);
      Value th = t.load(K.theta, E.min(m, t.index(half - 1)), {});
      auto [cs, sn] = rotation(K, c, th);
      if (half < pairs) { // pairs past r/2 pass through
        cs = E.select(rotated, cs, K.f32s(1.0));
        sn = E.select(rotated, sn, K.f32s(0.0));
      }
      Value ya = E.sub(E.mul(xa, cs), E.mul(xb, sn));
      Value yb = E.add(E.mul(xa, sn), E.mul(xb, cs));
      xa = ya;
      xb = yb;
    }
    Value at = E.mul(row, t.index(dim));
    t.store(xa, dst, E.add(at, a), live);
    t.store(xb, dst, E.add(at, b), live);
  });
}

/// Warped/blend: cos and sin of w(age) theta_m for the 2 BT - 1 ages a
/// (query tile, key tile) pair holds, (q0 - k0) + idx - (BT - 1) for idx =
/// row - j + BT - 1; masked (negative) ages use age 0.
void emitRelativeTable(Program &K, Value k0) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  int64_t half = K.half(), ages = 2 * K.bt - 1;
  Value L = K.f64s(static_cast<double>(K.s.length));
  t.forEachItem(ages * half, [&](Value item, Value live) {
    Value idx = E.div(item, t.index(half));
    Value m = E.rem(item, t.index(half));
    Value age = K.toF64(
        E.sub(E.add(t.splat(K.q0), idx), t.splat(E.add(k0, E.idx(K.bt - 1)))));
    age = E.max(age, K.f64s(0.0));
    Value count;
    if (K.s.schedule == ScheduleKind::Warped) {
      count = E.div(E.mul(L, age), E.add(age, L));
    } else {
      Value compressed = E.add(L, E.div(E.mul(L, E.sub(age, L)), age));
      count =
          E.select(E.cmpf(arith::CmpFPredicate::OLT, age, L), age, compressed);
    }
    auto [cs, sn] = rotation(K, count, t.load(K.theta, m, live));
    Value at = E.add(E.mul(idx, t.index(half + 1)), m);
    t.store(cs, K.cosTable, at, live);
    t.store(sn, K.sinTable, at, live);
  });
}

/// The running maximum update: (m_new, shift), shift the value subtracted
/// before exp (0 while everything is -inf, so that exp gives 0, never NaN).
std::pair<Value, Value> newMax(Program &K, Value m, Value candidate) {
  Emitter &E = K.E;
  Value mNew = E.max(m, candidate);
  Value empty = E.cmpf(arith::CmpFPredicate::OEQ, mNew, K.f32s(-INFINITY));
  return {mNew, E.select(empty, K.f32s(0.0), mNew)};
}

void emitBody(Program &K) {
  Emitter &E = K.E;
  gpu_detail::Tiles &t = K.t;
  const AttentionKernelSpec &s = K.s;
  int64_t tpr = K.tpr, bt = K.bt, half = K.half();
  int64_t slots = s.d / 2 / tpr, outSlots = s.e / tpr;
  int64_t rotSlots = half / tpr; // relative schedules: rotated slots
  bool relative = s.relativeSchedule();
  Value thread = t.range();
  Value part = E.rem(thread, t.index(tpr));
  Value row = E.div(thread, t.index(tpr));

  // Slot sl holds pair m = sl TPR + part; relative schedules pair dims by
  // the rotary layout, the others may use any pairing (no rotation in the
  // dot).
  SmallVector<Value> dimA, dimB, outDim;
  for (int64_t sl = 0; sl < slots; ++sl) {
    Value m = E.add(t.index(sl * tpr), part);
    if (relative && sl < rotSlots && s.layout == RotaryLayout::Half) {
      dimA.push_back(m);
      dimB.push_back(E.add(m, t.index(half)));
    } else {
      dimA.push_back(E.mul(m, t.index(2)));
      dimB.push_back(E.add(E.mul(m, t.index(2)), t.index(1)));
    }
  }
  for (int64_t sl = 0; sl < outSlots; ++sl)
    outDim.push_back(E.add(t.index(sl * tpr), part));

  // The diagonal tile: prefixes, then Q through the K tile into registers.
  emitTilePrefix(K, K.q0);
  // A query row's part of its log weights: p log2|scale| + G'_i.
  Value gi = K.f32s(static_cast<double>(s.p) *
                    std::log2(std::abs(s.effectiveScale())));
  if (K.gates())
    gi = E.add(t.load(K.pg, row, {}), gi);
  Value zeroCc = s.hasBeta() ? E.f64(0.0) : Value();
  emitLoadTile(K, K.q, s.hq, K.hq, s.d, K.q0, K.kTile, K.absolute(), zeroCc);
  gpu::BarrierOp::create(E.b, E.loc);
  SmallVector<Value> qa, qb;
  Value qRow = E.mul(row, t.index(s.d));
  for (int64_t sl = 0; sl < slots; ++sl) {
    qa.push_back(t.load(K.kTile, E.add(qRow, dimA[sl]), {}));
    qb.push_back(t.load(K.kTile, E.add(qRow, dimB[sl]), {}));
  }
  gpu::BarrierOp::create(E.b, E.loc);

  auto loadKV = [&](Value k0, Value ccTile) {
    emitLoadTile(K, K.k, s.h, K.h, s.d, k0, K.kTile, K.absolute(), ccTile);
    emitLoadTile(K, K.v, s.h, K.h, s.e, k0, K.vTile, false, Value());
    if (relative)
      emitRelativeTable(K, k0);
  };

  // The log weight in base 2 of key j (uniform) of the tile for every row:
  // p log2|q . k| + the row's part - G'_j, -inf where masked.
  auto keyWeight = [&](Value j, Value cgTile, bool diagonal) {
    Value ageIdx;
    if (relative)
      ageIdx = E.sub(E.add(row, t.index(bt - 1)), t.splat(j));
    Value kRow = t.splat(E.mul(j, E.idx(s.d)));
    Value dot = K.f32s(0.0);
    for (int64_t sl = 0; sl < slots; ++sl) {
      Value ka = t.load(K.kTile, E.add(kRow, dimA[sl]), {});
      Value kb = t.load(K.kTile, E.add(kRow, dimB[sl]), {});
      if (relative && sl < rotSlots) {
        // (R(w) q) . k = cos (qa ka + qb kb) + sin (qa kb - qb ka)
        Value at = E.add(E.mul(ageIdx, t.index(half + 1)),
                         E.add(t.index(sl * tpr), part));
        Value cs = t.load(K.cosTable, at, {});
        Value sn = t.load(K.sinTable, at, {});
        Value same = E.fma(qa[sl], ka, E.mul(qb[sl], kb));
        Value cross = E.fma(qa[sl], kb, E.neg(E.mul(qb[sl], ka)));
        dot = E.fma(cs, same, E.fma(sn, cross, dot));
      } else {
        dot = E.fma(qa[sl], ka, dot);
        dot = E.fma(qb[sl], kb, dot);
      }
    }
    if (tpr > 1)
      dot = tile::SegmentReduceOp::create(E.b, E.loc, tile::ReduceKind::sum,
                                          dot, tpr);
    Value rest = gi;
    if (K.gates()) {
      Value gj = E.load(K.pg, {j});
      rest = E.sub(gi, t.splat(cgTile ? E.sub(gj, cgTile) : gj));
    }
    // One fma on the hardware's log2, subnormals flushed (|s| below 2^-126
    // weighs 0, as a weight below 2^-126 of the row's largest); |s| = 0
    // gives -inf (weight 0), never NaN.
    Value lw =
        E.fma(K.f32s(static_cast<double>(s.p)), E.log2Flush(E.abs(dot)), rest);
    if (diagonal)
      lw = E.select(E.cmpi(arith::CmpIPredicate::ugt, t.splat(j), row),
                    K.f32s(-INFINITY), lw);
    return lw;
  };

  // State: m, den, acc[outSlots]. Keys go in groups of `group`: one
  // running-maximum update and one rescale of the accumulators per group
  // instead of per key.
  int64_t group = std::gcd<int64_t>(bt, 8);
  auto processTile = [&](Value cgTile, ValueRange state, bool diagonal) {
    return E.forLoop(
        E.idx(0), E.idx(bt), E.idx(group), state, [&](Value j0, ValueRange st) {
          SmallVector<Value> lw, keys;
          Value groupMax = K.f32s(-INFINITY);
          for (int64_t c = 0; c < group; ++c) {
            keys.push_back(E.add(j0, E.idx(c)));
            lw.push_back(keyWeight(keys.back(), cgTile, diagonal));
            groupMax = E.max(groupMax, lw.back());
          }
          auto [mNew, shift] = newMax(K, st[0], groupMax);
          Value corr = E.exp2Approx(E.sub(st[0], shift));
          SmallVector<Value> next{mNew, E.mul(st[1], corr)};
          for (int64_t sl = 0; sl < outSlots; ++sl)
            next.push_back(E.mul(st[2 + sl], corr));
          for (int64_t c = 0; c < group; ++c) {
            Value w = E.exp2Flush(E.sub(lw[c], shift));
            next[1] = E.add(next[1], w);
            Value vRow = t.splat(E.mul(keys[c], E.idx(s.e)));
            for (int64_t sl = 0; sl < outSlots; ++sl)
              next[2 + sl] =
                  E.fma(w, t.load(K.vTile, E.add(vRow, outDim[sl]), {}),
                        next[2 + sl]);
          }
          return next;
        });
  };

  loadKV(K.q0, zeroCc);
  gpu::BarrierOp::create(E.b, E.loc);
  SmallVector<Value> state{K.f32s(-INFINITY), K.f32s(0.0)};
  for (int64_t sl = 0; sl < outSlots; ++sl)
    state.push_back(K.f32s(0.0));
  state = processTile(Value(), state, /*diagonal=*/true);

  // The off-diagonal key tiles kt = qt - 1 .. 0, carrying G'_{k0-1} and
  // c'_{k0-1} (the sums of the tiles after this one) in front of the state.
  SmallVector<Value> inits;
  if (K.gates())
    inits.push_back(E.f32(0.0));
  if (K.learned())
    inits.push_back(E.f64(0.0));
  unsigned carries = inits.size();
  llvm::append_range(inits, state);
  auto results = E.forLoop(
      E.idx(0), K.qt, E.idx(1), inits, [&](Value it, ValueRange args) {
        Value kt = E.sub(E.sub(K.qt, E.idx(1)), it);
        Value k0 = E.mul(kt, E.idx(bt));
        // The previous tile's readers must be done with pg, pc, K and V.
        gpu::BarrierOp::create(E.b, E.loc);
        emitTilePrefix(K, k0);
        SmallVector<Value> next;
        unsigned i = 0;
        Value cgTile, ccTile;
        if (K.gates()) {
          cgTile = E.add(args[i++], E.load(K.pg, {E.idx(bt - 1)}));
          next.push_back(cgTile);
        }
        if (K.learned()) {
          ccTile = E.add(args[i++], E.load(K.pc, {E.idx(bt - 1)}));
          next.push_back(ccTile);
        }
        loadKV(k0, ccTile);
        gpu::BarrierOp::create(E.b, E.loc);
        llvm::append_range(
            next, processTile(cgTile, args.drop_front(i), /*diagonal=*/false));
        return next;
      });
  state.assign(results.begin() + carries, results.end());

  // y = num / den, 0 where den = 0.
  Value i = E.add(t.splat(K.q0), row);
  Value den = state[1];
  Value inv = E.select(E.cmpf(arith::CmpFPredicate::OGT, den, K.f32s(0.0)),
                       E.div(K.f32s(1.0), den), K.f32s(0.0));
  Value base = K.tokenRow(K.q0, row, s.hq, K.hq, s.e);
  Value inside = E.ult(i, t.splat(K.T));
  for (int64_t sl = 0; sl < outSlots; ++sl)
    t.store(t.convert(E.mul(state[2 + sl], inv), K.elem), K.y,
            E.add(base, outDim[sl]), inside);
}

} // namespace

LogicalResult buildAttentionFma(OpBuilder &b, gpu::GPUModuleOp module,
                                const AttentionKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  Location loc = module.getLoc();
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  int64_t bt = s.resolvedBlockTokens(), tpr = attentionThreadsPerRow(s);
  int64_t r = s.effectiveRotaryDims(), P = s.threadsPerBlock();
  using gpu_detail::workgroupMemRef;
  // K (Q first) and V tiles, then the optional arrays in a fixed order.
  SmallVector<Type> workgroup{workgroupMemRef({bt * s.d}, f32),
                              workgroupMemRef({bt * s.e}, f32)};
  auto optional = [&](bool present, int64_t size, Type type) -> int {
    if (!present)
      return -1;
    workgroup.push_back(workgroupMemRef({size}, type));
    return int(workgroup.size()) - 1;
  };
  bool gates = s.gate != GateKind::None;
  int pgAt = optional(gates, bt, f32), stageGAt = optional(gates, bt, f32);
  int pcAt = optional(s.hasBeta(), bt, f64),
      stageCAt = optional(s.hasBeta(), bt, f64);
  int thetaAt = optional(r > 0, std::max<int64_t>(1, r / 2), f64);
  // cos, sin per age and pair; + 1 keeps rows off one bank.
  int64_t tableSize = (2 * bt - 1) * (r / 2 + 1);
  int cosAt = optional(s.relativeSchedule(), tableSize, f32);
  int sinAt = optional(s.relativeSchedule(), tableSize, f32);

  // q, k, v, [log_g], [log_gamma], [beta], y: the arguments of the kernel
  // outside the tile kernel's rotated halves.
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::Attention, P,
      {tile::KernelAttr::perTokens(bt), s.hq, tile::KernelAttr::kBatch},
      workgroup, args, 0, runtime::Formulation::Chunked);
  tile::setMinBlocksPerSM(fn, kAttentionFmaBlocksPerSM);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  auto wg = fn.getWorkgroupAttributions();
  auto array = [&](int at) { return at < 0 ? Value() : Value(wg[at]); };
  using runtime::KernelArg;
  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Program K{s, E, t, bt, r, tpr, gpu_detail::elementType(ctx, s.dtype)};
  K.q = args.get(fn, KernelArg::Q);
  K.k = args.get(fn, KernelArg::K);
  K.v = args.get(fn, KernelArg::V);
  K.logG = args.get(fn, KernelArg::LogG);
  K.logGamma = args.get(fn, KernelArg::LogGamma);
  K.beta = args.get(fn, KernelArg::Beta);
  K.y = args.get(fn, KernelArg::Y);
  K.T = args.seqLen(b, fn);
  K.batch = ids.z;
  K.hq = ids.y;
  K.h = E.div(ids.y, E.idx(s.hq / s.h));
  K.qt = ids.x;
  K.q0 = E.mul(ids.x, E.idx(bt));
  K.kTile = wg[0];
  K.vTile = wg[1];
  K.pg = array(pgAt);
  K.pc = array(pcAt);
  K.theta = array(thetaAt);
  K.cosTable = array(cosAt);
  K.sinTable = array(sinAt);
  K.stageG = array(stageGAt);
  K.stageC = array(stageCAt);
  if (s.hasLogGamma())
    K.gammaH = E.load(K.logGamma, {K.h});
  emitThetaTable(K);
  emitBody(K);
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow
