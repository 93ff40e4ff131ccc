//===- RecurrentKernel.cpp - The recurrent formulation's gpu.func ---------===//
//
// Block (h, b) holds the state of key/value head h of sequence b. Its threads
// form L row lanes of e columns: lane l owns a contiguous range of the D
// state rows, column c owns column c of S.
//
// Accuracy. phi(q) . S sums D products of both signs whose magnitudes add
// up to (|q| . |k_j|)^p per key, while the true value is (q . k_j)^p: for
// p = 4 and normal data the ratio is often 1e3 .. 1e6 on the first tokens
// of a sequence, where few keys make up the denominator. Reading y_t off
// the state just updated with k_t then loses everything in f32: the state's
// own rounding (S is f32, SPEC) is of the size of the answer. So the state
// in S lags the sequence by a window of W tokens: y_t takes the window's
// tokens t - W + 1 .. t directly, exp(G_t - G_j) (q'_t . k'_j)^p v_j as the
// attention formulation does, and only older ones through the state, whose
// denominator then has W keys and a large value. The window's rotated keys,
// values and gates stay in workgroup memory; the step of token t folds
// token t - W + 1 into S, the last step all the window's tokens, so S, Z
// leave the kernel complete and each step still reads and writes S once.
// For f32 inputs phi, the dot products with the state, the state update and
// the window's weights are computed in f64 (S, Z rounded to f32 once per
// step); bf16/f16 inputs (SPEC: 1e-2) keep f32.
//
// Per token t, in order:
//   1. thread 0 advances the angle count c (f64), the gate prefix G_t (f64)
//      and the window's ring of gates;
//   2. k_t into the window, the group's q_t (times scale) rotated by c_t,
//      and v_t into workgroup memory; threads compute the window's weights;
//   3. every thread walks its rows: the numerators sum_n S[n, c] phi(q_j)_n
//      against the lagging state (column 0 also Z and the denominators),
//      then folds the window's oldest token (all of them at the last step):
//      S[n, c] = gamma S[n, c] + phi(k)_n v_c;
//   4. the lanes' partial sums are added through workgroup memory and
//      lane 0 writes y from the state's part and the window's.
// Angles are reduced modulo 2*pi in f64 before cos/sin in f32, so the count
// may grow to any length (SPEC: within 1e-5 rad at 64K tokens).
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/GPU/RecurrentKernel.h"

#include "KernelCommon.h"
#include "SymmetricPowerRows.h"

#include "sympow/Dialect/SymmetricPower.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {
namespace {

using gpu_detail::stateRowLanes;

/// Tokens whose contributions y takes directly rather than through the
/// state. At p = 4, d = 16, T = 33 on SPEC's random data (a model of the
/// kernel's arithmetic over 1000 sequences) W = 8 keeps the f32 error below
/// 0.013 of SPEC's bound; W = 4 reaches 0.3 and W = 1 fails one sequence in
/// fifty.
constexpr int64_t kWindow = 8;

/// The kernel's arguments, ids and workgroup arrays.
struct Recurrent {
  const AttentionKernelSpec &spec;
  Emitter &E;
  Type elem;
  /// f64 for f32 inputs, f32 otherwise: phi, the dot products with the
  /// state, the state update and the window's weights.
  Type acc;
  int64_t g, r, lanes, dim;
  Value q, k, v, logG, logGamma, beta, y, s, z, c;
  Value T, b, h, tid, lane, col;
  // Workgroup memory: rotated vectors [(W + g) * d] (the window's keys,
  // token j in row j mod W, then the group's queries), the window's values
  // [W * e], theta [r/2], scalars [3] (f64: count, G_t, G of the state),
  // partial numerators [lanes * g * e] and denominators [lanes * g], the
  // window's gate prefixes G_j [W] (f64) and gates gamma_j [W], and its
  // weights [g * W] (age a = t - j).
  Value vectors, values, theta, scalars, partialNum, partialDen, windowG,
      windowGamma, weights;

  Value slot(Value token) { return E.rem(token, E.idx(kWindow)); }
};

/// Flat offset of [b, t, head, 0] in a [B, T, heads, dim] tensor.
Value tokenOffset(Recurrent &K, Value t, int64_t heads, Value head,
                  int64_t dim) {
  Emitter &E = K.E;
  Value bt = E.add(E.mul(K.b, K.T), t);
  return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(dim));
}

/// sqrt(p! / prod_k m_k!) * prod_l x[offset + i_l] in `type`: phi(x) at
/// `row` from an f32 vector in workgroup memory.
Value phiAt(Emitter &E, Type type, Value x, Value offset, ValueRange row) {
  // The ratio is exact in f32; only the square root is taken in `type`.
  Value phi =
      math::SqrtOp::create(E.b, E.loc, E.convert(multisetRatio(E, row), type));
  for (Value index : row)
    phi = E.mul(phi, E.convert(E.load(x, {E.add(offset, index)}), type));
  return phi;
}

/// Step 1: c_t into scalars[0], G_t into scalars[1] and the window's slot of
/// token t (with gamma_t), G_{t-W} into scalars[2] (0 until t = W: the
/// initial state's).
void emitAdvanceCount(Recurrent &K, Value t) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f64 = E.b.getF64Type();
  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)), [&] {
    Value rowBH = tokenOffset(K, t, s.h, K.h, 1);
    if (s.rotates()) {
      Value step =
          s.hasBeta() ? E.convert(E.load(K.beta, {rowBH}), f64) : E.f64(1.0);
      E.store(E.add(E.load(K.scalars, {E.idx(0)}), step), K.scalars,
              {E.idx(0)});
    }
    Value logGate = E.f64(0.0);
    if (s.hasLogG())
      logGate = E.convert(E.load(K.logG, {rowBH}), f64);
    if (s.hasLogGamma())
      logGate = E.add(logGate, E.convert(E.load(K.logGamma, {K.h}), f64));
    Value slot = K.slot(t);
    E.ifThen(E.cmpi(arith::CmpIPredicate::uge, t, E.idx(kWindow)), [&] {
      E.store(E.load(K.windowG, {slot}), K.scalars, {E.idx(2)});
    });
    Value prefix = E.add(E.load(K.scalars, {E.idx(1)}), logGate);
    E.store(prefix, K.scalars, {E.idx(1)});
    E.store(prefix, K.windowG, {slot});
    E.store(E.convert(E.exp(logGate), K.acc), K.windowGamma, {slot});
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// Step 2: k_t into the window and the group's q_t (scaled), rotated by
/// c_t, and v_t into the window, as f32; then the window's weights
/// exp(G_t - G_j) (q'_t . k'_j)^p for the ages a = t - j <= t.
void emitLoadVectors(Recurrent &K, Value t) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = E.b.getF32Type();
  int64_t pairs = s.d / 2, threads = recurrentThreadsPerBlock(s);
  Value count = s.rotates() ? E.load(K.scalars, {E.idx(0)}) : Value();
  Value slot = K.slot(t);
  E.forLoop(K.tid, E.idx((1 + K.g) * pairs), E.idx(threads), {},
            [&](Value item, ValueRange) {
              Value vec = E.div(item, E.idx(pairs));
              Value m = E.rem(item, E.idx(pairs));
              // vec 0 is k; vec j > 0 is query head h * g + j - 1.
              Value isKey = E.cmpi(arith::CmpIPredicate::eq, vec, E.idx(0));
              Value qHead = E.add(E.mul(K.h, E.idx(K.g)), E.sub(vec, E.idx(1)));
              Value kBase = tokenOffset(K, t, s.h, K.h, s.d);
              Value qBase = tokenOffset(K, t, s.hq,
                                        E.select(isKey, E.idx(0), qHead), s.d);
              auto [i0, i1] = gpu_detail::pairDims(E, s, m);
              auto read = [&](Value dim) {
                Value fromK = E.convert(E.load(K.k, {E.add(kBase, dim)}), f32);
                // For vec 0 the query load (head 0) is in bounds and unused.
                Value fromQ =
                    E.mul(E.convert(E.load(K.q, {E.add(qBase, dim)}), f32),
                          E.f32(s.effectiveScale()));
                return E.select(isKey, fromK, fromQ);
              };
              Value x0 = read(i0), x1 = read(i1);
              if (s.rotates())
                std::tie(x0, x1) =
                    gpu_detail::rotatePair(E, s, K.theta, m, count, x0, x1);
              // Keys in the window's rows, queries after them.
              Value row = E.select(isKey, slot, E.add(vec, E.idx(kWindow - 1)));
              Value base = E.mul(row, E.idx(s.d));
              E.store(x0, K.vectors, {E.add(base, i0)});
              E.store(x1, K.vectors, {E.add(base, i1)});
              return SmallVector<Value>{};
            });
  Value vBase = tokenOffset(K, t, s.h, K.h, s.e);
  Value vSlot = E.mul(slot, E.idx(s.e));
  E.forLoop(K.tid, E.idx(s.e), E.idx(threads), {}, [&](Value i, ValueRange) {
    E.store(E.convert(E.load(K.v, {E.add(vBase, i)}), f32), K.values,
            {E.add(vSlot, i)});
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(E.b, E.loc);

  // Read by lane 0 after step 4's barrier.
  Value prefix = E.load(K.scalars, {E.idx(1)});
  E.forLoop(K.tid, E.idx(K.g * kWindow), E.idx(threads), {},
            [&](Value item, ValueRange) {
              Value j = E.div(item, E.idx(kWindow));
              Value age = E.rem(item, E.idx(kWindow));
              Value inWindow = E.cmpi(arith::CmpIPredicate::ule, age, t);
              E.ifThen(inWindow, [&] {
                Value keySlot = K.slot(E.sub(t, age));
                Value qRow = E.mul(E.add(j, E.idx(kWindow)), E.idx(s.d));
                Value kRow = E.mul(keySlot, E.idx(s.d));
                // d as a run-time bound: with a constant one LLVM unrolls
                // the loop and hoists its loads into registers.
                Value dims = E.min(E.idx(s.d), E.add(t, E.idx(s.d)));
                Value dot = E.forLoop(
                    E.idx(0), dims, E.idx(1), {E.fconst(K.acc, 0.0)},
                    [&](Value x, ValueRange sum) {
                      Value qx =
                          E.convert(E.load(K.vectors, {E.add(qRow, x)}), K.acc);
                      Value kx =
                          E.convert(E.load(K.vectors, {E.add(kRow, x)}), K.acc);
                      return SmallVector<Value>{E.fma(qx, kx, sum[0])};
                    })[0];
                Value power = dot;
                for (int64_t i = 1; i < s.p; ++i)
                  power = E.mul(power, dot);
                // exp(G_t - G_j) <= 1: the gates are at most 1.
                Value decay = E.convert(
                    E.exp(E.sub(prefix, E.load(K.windowG, {keySlot}))), K.acc);
                E.store(E.mul(decay, power), K.weights, {item});
              });
              return SmallVector<Value>{};
            });
}

/// Step 3: this thread's rows; returns the g numerators and g denominators
/// against the state before the fold (it holds tokens up to t - W), and
/// folds tokens [foldBegin, foldEnd) into S, Z.
SmallVector<Value> emitRowWalk(Recurrent &K, Value t, ArrayRef<Value> firstRow,
                               Value rowBegin, Value rowEnd) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = E.b.getF32Type();
  Type acc = K.acc;
  int64_t p = s.p;
  Value stateBase = E.mul(E.add(E.mul(K.b, E.idx(s.h)), K.h), E.idx(K.dim));
  Value isFirstColumn = E.cmpi(arith::CmpIPredicate::eq, K.col, E.idx(0));

  // Token t - W + 1 leaves the window; at the last step all of it does.
  Value next = E.add(t, E.idx(1));
  Value full = E.cmpi(arith::CmpIPredicate::uge, next, E.idx(kWindow));
  Value foldBegin = E.select(full, E.sub(next, E.idx(kWindow)), E.idx(0));
  Value isLast = E.cmpi(arith::CmpIPredicate::eq, next, K.T);
  Value foldEnd = E.select(
      isLast, next, E.select(full, E.add(foldBegin, E.idx(1)), E.idx(0)));

  SmallVector<Value> inits(firstRow.begin(), firstRow.end());
  for (int64_t j = 0; j < 2 * K.g; ++j)
    inits.push_back(E.fconst(acc, 0.0));
  auto result =
      E.forLoop(rowBegin, rowEnd, E.idx(1), inits, [&](Value n, ValueRange st) {
        ValueRange row = st.take_front(p);
        SmallVector<Value> phiQ;
        for (int64_t j = 0; j < K.g; ++j)
          phiQ.push_back(
              phiAt(E, acc, K.vectors, E.idx((kWindow + j) * s.d), row));

        Value sIndex = E.add(E.mul(E.add(stateBase, n), E.idx(s.e)), K.col);
        Value sOld = E.convert(E.load(K.s, {sIndex}), acc);
        // Z has one entry per row: column 0 owns it.
        Value zIndex = E.add(stateBase, n);
        auto zIf = scf::IfOp::create(E.b, E.loc, TypeRange{acc}, isFirstColumn,
                                     /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(E.b);
          E.b.setInsertionPointToStart(&zIf.getThenRegion().front());
          scf::YieldOp::create(E.b, E.loc,
                               E.convert(E.load(K.z, {zIndex}), acc));
          E.b.setInsertionPointToStart(&zIf.getElseRegion().front());
          scf::YieldOp::create(E.b, E.loc, E.fconst(acc, 0.0));
        }
        Value zOld = zIf.getResult(0);

        auto folded = E.forLoop(
            foldBegin, foldEnd, E.idx(1), {sOld, zOld},
            [&](Value token, ValueRange state) {
              Value slot = K.slot(token);
              Value phiK =
                  phiAt(E, acc, K.vectors, E.mul(slot, E.idx(s.d)), row);
              Value vc = E.convert(
                  E.load(K.values, {E.add(E.mul(slot, E.idx(s.e)), K.col)}),
                  acc);
              Value gamma = E.load(K.windowGamma, {slot});
              return SmallVector<Value>{E.fma(phiK, vc, E.mul(gamma, state[0])),
                                        E.fma(gamma, state[1], phiK)};
            });
        E.store(E.convert(folded[0], f32), K.s, {sIndex});
        E.ifThen(isFirstColumn,
                 [&] { E.store(E.convert(folded[1], f32), K.z, {zIndex}); });

        SmallVector<Value> next = gpu_detail::nextMultiset(E, s.d, row);
        for (int64_t j = 0; j < K.g; ++j)
          next.push_back(E.fma(sOld, phiQ[j], st[p + j]));
        for (int64_t j = 0; j < K.g; ++j)
          next.push_back(E.fma(zOld, phiQ[j], st[p + K.g + j]));
        return next;
      });
  return SmallVector<Value>(result.begin() + p, result.end());
}

/// Step 4: add the lanes' partial sums, weigh them by exp(G_t - G_{t-W}),
/// add the window's tokens and write y_t for the group.
void emitWriteOutput(Recurrent &K, Value t, ArrayRef<Value> sums) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type acc = K.acc;
  for (int64_t j = 0; j < K.g; ++j) {
    Value at = E.add(
        E.mul(E.add(E.mul(K.lane, E.idx(K.g)), E.idx(j)), E.idx(s.e)), K.col);
    E.store(sums[j], K.partialNum, {at});
    E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.col, E.idx(0)), [&] {
      E.store(sums[K.g + j], K.partialDen,
              {E.add(E.mul(K.lane, E.idx(K.g)), E.idx(j))});
    });
  }
  gpu::BarrierOp::create(E.b, E.loc);
  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.lane, E.idx(0)), [&] {
    // The state holds tokens up to t - W: exp(G_t - G_{t-W}) <= 1.
    Value stateWeight = E.convert(E.exp(E.sub(E.load(K.scalars, {E.idx(1)}),
                                              E.load(K.scalars, {E.idx(2)}))),
                                  acc);
    for (int64_t j = 0; j < K.g; ++j) {
      Value num = E.fconst(acc, 0.0), den = E.fconst(acc, 0.0);
      for (int64_t l = 0; l < K.lanes; ++l) {
        num = E.add(num, E.load(K.partialNum,
                                {E.add(E.idx((l * K.g + j) * s.e), K.col)}));
        den = E.add(den, E.load(K.partialDen, {E.idx(l * K.g + j)}));
      }
      num = E.mul(num, stateWeight);
      den = E.mul(den, stateWeight);
      // The window's tokens t - a, a < min(t + 1, W).
      Value ages = E.min(E.add(t, E.idx(1)), E.idx(kWindow));
      auto window = E.forLoop(
          E.idx(0), ages, E.idx(1), {num, den}, [&](Value age, ValueRange st) {
            Value slot = K.slot(E.sub(t, age));
            Value w = E.load(K.weights, {E.add(E.idx(j * kWindow), age)});
            Value vc = E.convert(
                E.load(K.values, {E.add(E.mul(slot, E.idx(s.e)), K.col)}), acc);
            return SmallVector<Value>{E.fma(w, vc, st[0]), E.add(st[1], w)};
          });
      num = window[0];
      den = window[1];
      // y = 0 only where the denominator is 0 (SPEC); a state the caller
      // made up may give a negative one.
      Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, den, E.fconst(acc, 0));
      Value yv = E.select(
          nonzero, E.div(num, E.select(nonzero, den, E.fconst(acc, 1.0))),
          E.fconst(acc, 0.0));
      Value qHead = E.add(E.mul(K.h, E.idx(K.g)), E.idx(j));
      Value at = E.add(tokenOffset(K, t, s.hq, qHead, s.e), K.col);
      E.store(E.convert(yv, K.elem), K.y, {at});
    }
  });
  // The next token reuses the workgroup arrays.
  gpu::BarrierOp::create(E.b, E.loc);
}

} // namespace

int64_t recurrentThreadsPerBlock(const AttentionKernelSpec &spec) {
  return stateRowLanes(spec) * spec.e;
}

llvm::Error verifyRecurrentKernelSpec(const AttentionKernelSpec &spec) {
  if (llvm::Error error = verifyKernelVariant(spec))
    return error;
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (spec.relativeSchedule())
    return fail(llvm::formatv(
        "schedule '{0}' has no recurrent form: only the attention kernel "
        "computes it",
        stringifyScheduleKind(spec.schedule)));
  std::optional<int64_t> dim = symmetricPowerDim(spec.d, spec.p);
  // At most 2^32 f32 values (16 GiB) per state of one head.
  if (!dim || *dim > (int64_t(1) << 32) / spec.e)
    return fail(llvm::formatv("phi^{0} of d = {1} is too large a state for "
                              "the recurrent kernel",
                              spec.p, spec.d));
  if (recurrentThreadsPerBlock(spec) > 1024)
    return fail(llvm::formatv("e = {0} needs more than 1024 threads", spec.e));
  return llvm::Error::success();
}

gpu::GPUFuncOp buildRecurrentKernel(OpBuilder &builder, gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &spec,
                                    StringRef name) {
  OpBuilder::InsertionGuard guard(builder);
  MLIRContext *ctx = builder.getContext();
  Location loc = module.getLoc();
  builder.setInsertionPointToEnd(module.getBody());

  Type elem = gpu_detail::elementType(ctx, spec.dtype);
  Type f32 = builder.getF32Type(), f64 = builder.getF64Type();
  gpu_detail::KernelArguments args =
      gpu_detail::kernelArguments(ctx, spec, "recurrent");
  int64_t g = spec.hq / spec.h, lanes = stateRowLanes(spec);
  int64_t r = spec.effectiveRotaryDims();
  using gpu_detail::workgroupMemRef;
  Type acc = spec.dtype == ElementKind::F32 ? f64 : f32;
  SmallVector<Type> workgroup{
      workgroupMemRef({(kWindow + g) * spec.d}, f32),
      workgroupMemRef({kWindow * spec.e}, f32),
      workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64),
      workgroupMemRef({3}, f64),
      workgroupMemRef({lanes * g * spec.e}, acc),
      workgroupMemRef({lanes * g}, acc),
      workgroupMemRef({kWindow}, f64),
      workgroupMemRef({kWindow}, acc),
      workgroupMemRef({g * kWindow}, acc)};

  auto fn = gpu::GPUFuncOp::create(
      builder, loc, name, builder.getFunctionType(args.types, {}), workgroup);
  // At least two blocks per SM (at most 128 registers): without a floor
  // ptxas gives the f64 variants up to 255.
  gpu_detail::setLaunch(builder, fn, recurrentThreadsPerBlock(spec),
                        /*tokensPerBlock=*/0, /*gridY=*/spec.h,
                        /*minBlocksPerSM=*/2);

  builder.setInsertionPointToStart(&fn.getBody().front());
  Emitter E(builder, loc);
  Recurrent K{spec, E, elem,  acc,
              g,    r, lanes, *symmetricPowerDim(spec.d, spec.p)};
  using runtime::KernelArg;
  K.q = args.get(fn, KernelArg::Q);
  K.k = args.get(fn, KernelArg::K);
  K.v = args.get(fn, KernelArg::V);
  K.logG = args.get(fn, KernelArg::LogG);
  K.logGamma = args.get(fn, KernelArg::LogGamma);
  K.beta = args.get(fn, KernelArg::Beta);
  K.y = args.get(fn, KernelArg::Y);
  K.s = args.get(fn, KernelArg::S);
  K.z = args.get(fn, KernelArg::Z);
  K.c = args.get(fn, KernelArg::C);
  K.T = args.seqLen(builder, fn); // B: the grid's z extent already says it
  auto wg = fn.getWorkgroupAttributions();
  K.vectors = wg[0];
  K.values = wg[1];
  K.theta = wg[2];
  K.scalars = wg[3];
  K.partialNum = wg[4];
  K.partialDen = wg[5];
  K.windowG = wg[6];
  K.windowGamma = wg[7];
  K.weights = wg[8];

  K.tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  K.h = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::y);
  K.b = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::z);
  K.lane = E.div(K.tid, E.idx(spec.e));
  K.col = E.rem(K.tid, E.idx(spec.e));

  // The count c of this state, carried in workgroup memory across tokens.
  Value stateBH = E.add(E.mul(K.b, E.idx(spec.h)), K.h);
  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)), [&] {
    E.store(E.load(K.c, {stateBH}), K.scalars, {E.idx(0)});
    E.store(E.f64(0.0), K.scalars, {E.idx(1)});
    E.store(E.f64(0.0), K.scalars, {E.idx(2)});
  });
  gpu_detail::emitThetaTable(E, spec, K.theta, K.tid,
                             recurrentThreadsPerBlock(spec));
  gpu::BarrierOp::create(builder, loc);

  // This lane's rows [begin, end) and the multiset of the first one.
  int64_t rowsPerLane = (K.dim + lanes - 1) / lanes;
  Value rowBegin = E.min(E.mul(K.lane, E.idx(rowsPerLane)), E.idx(K.dim));
  Value rowEnd = E.min(E.add(rowBegin, E.idx(rowsPerLane)), E.idx(K.dim));
  SmallVector<Value> firstRow =
      gpu_detail::unrankMultiset(E, spec.p, spec.d, rowBegin);

  E.forLoop(E.idx(0), K.T, E.idx(1), {}, [&](Value t, ValueRange) {
    emitAdvanceCount(K, t);
    emitLoadVectors(K, t);
    SmallVector<Value> sums = emitRowWalk(K, t, firstRow, rowBegin, rowEnd);
    emitWriteOutput(K, t, sums);
    return SmallVector<Value>{};
  });

  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)),
           [&] { E.store(E.load(K.scalars, {E.idx(0)}), K.c, {stateBH}); });
  gpu::ReturnOp::create(builder, loc);
  return fn;
}

} // namespace sympow
