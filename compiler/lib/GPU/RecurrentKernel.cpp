//===- RecurrentKernel.cpp - The recurrent formulation's gpu.func ---------===//
//
// Block (h, b) holds the state of key/value head h of sequence b. Its threads
// form L row lanes of e columns: lane l owns a contiguous range of the D
// state rows, column c owns column c of S. Per token t, in order:
//   1. thread 0 advances the angle count c (f64) and the gate gamma_t;
//   2. k_t and the group's q_t (times scale) are rotated by c_t into
//      workgroup memory, v_t copied next to them;
//   3. every thread walks its rows: S[n, c] = gamma S[n, c] + phi(k)_n v_c
//      and the numerators sum_n S[n, c] phi(q_j)_n; column 0 also updates
//      Z[n] and the denominators;
//   4. the lanes' partial sums are added through workgroup memory and
//      lane 0 writes y.
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

/// The kernel's arguments, ids and workgroup arrays.
struct Recurrent {
  const AttentionKernelSpec &spec;
  Emitter &E;
  Type elem;
  int64_t g, r, lanes, dim;
  Value q, k, v, logG, logGamma, beta, y, s, z, c;
  Value T, b, h, tid, lane, col;
  // Workgroup memory: rotated vectors [(1 + g) * d] (k first, then the
  // group's queries), v [e], theta [r/2], count and gate [2] (f64),
  // partial numerators [lanes * g * e] and denominators [lanes * g].
  Value vectors, values, theta, scalars, partialNum, partialDen;
};

/// Flat offset of [b, t, head, 0] in a [B, T, heads, dim] tensor.
Value tokenOffset(Recurrent &K, Value t, int64_t heads, Value head,
                  int64_t dim) {
  Emitter &E = K.E;
  Value bt = E.add(E.mul(K.b, K.T), t);
  return E.mul(E.add(E.mul(bt, E.idx(heads)), head), E.idx(dim));
}

/// Step 1: c_t and gamma_t into scalars[0], scalars[1].
void emitAdvanceCount(Recurrent &K, Value t) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)), [&] {
    Value rowBH = tokenOffset(K, t, s.h, K.h, 1);
    if (s.rotates()) {
      Value step = s.hasBeta()
                       ? E.convert(E.load(K.beta, {rowBH}), E.b.getF64Type())
                       : E.f64(1.0);
      E.store(E.add(E.load(K.scalars, {E.idx(0)}), step), K.scalars,
              {E.idx(0)});
    }
    Value logGate = E.f32(0.0);
    if (s.hasLogG())
      logGate = E.load(K.logG, {rowBH});
    if (s.hasLogGamma())
      logGate = E.add(logGate, E.load(K.logGamma, {K.h}));
    E.store(E.convert(E.exp(logGate), E.b.getF64Type()), K.scalars, {E.idx(1)});
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// Step 2: k_t and the group's q_t (scaled) rotated by c_t, and v_t, into
/// workgroup memory as f32.
void emitLoadVectors(Recurrent &K, Value t) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = E.b.getF32Type();
  int64_t pairs = s.d / 2, threads = recurrentThreadsPerBlock(s);
  Value count = s.rotates() ? E.load(K.scalars, {E.idx(0)}) : Value();
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
              Value base = E.mul(vec, E.idx(s.d));
              E.store(x0, K.vectors, {E.add(base, i0)});
              E.store(x1, K.vectors, {E.add(base, i1)});
              return SmallVector<Value>{};
            });
  Value vBase = tokenOffset(K, t, s.h, K.h, s.e);
  E.forLoop(K.tid, E.idx(s.e), E.idx(threads), {}, [&](Value i, ValueRange) {
    E.store(E.convert(E.load(K.v, {E.add(vBase, i)}), f32), K.values, {i});
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(E.b, E.loc);
}

/// Step 3: this thread's rows; returns the g numerators and g denominators.
SmallVector<Value> emitRowWalk(Recurrent &K, ArrayRef<Value> firstRow,
                               Value rowBegin, Value rowEnd) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = E.b.getF32Type();
  int64_t p = s.p;
  Value gamma = E.convert(E.load(K.scalars, {E.idx(1)}), f32);
  Value vc = E.load(K.values, {K.col});
  Value isFirstColumn = E.cmpi(arith::CmpIPredicate::eq, K.col, E.idx(0));
  Value stateBase = E.mul(E.add(E.mul(K.b, E.idx(s.h)), K.h), E.idx(K.dim));

  SmallVector<Value> inits(firstRow.begin(), firstRow.end());
  for (int64_t j = 0; j < 2 * K.g; ++j)
    inits.push_back(E.f32(0.0));
  auto result =
      E.forLoop(rowBegin, rowEnd, E.idx(1), inits, [&](Value n, ValueRange st) {
        ValueRange row = st.take_front(p);
        Value coef = gpu_detail::multisetScale(E, row);
        Value phiK = E.mul(
            coef, gpu_detail::multisetProduct(E, K.vectors, E.idx(0), row));
        SmallVector<Value> phiQ;
        for (int64_t j = 0; j < K.g; ++j)
          phiQ.push_back(
              E.mul(coef, gpu_detail::multisetProduct(
                              E, K.vectors, E.idx((1 + j) * s.d), row)));

        Value sIndex = E.add(E.mul(E.add(stateBase, n), E.idx(s.e)), K.col);
        Value sNew = E.fma(phiK, vc, E.mul(gamma, E.load(K.s, {sIndex})));
        E.store(sNew, K.s, {sIndex});

        // Z has one entry per row: column 0 owns it.
        Value zIndex = E.add(stateBase, n);
        auto zIf = scf::IfOp::create(E.b, E.loc, TypeRange{f32}, isFirstColumn,
                                     /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(E.b);
          E.b.setInsertionPointToStart(&zIf.getThenRegion().front());
          Value zNew = E.fma(gamma, E.load(K.z, {zIndex}), phiK);
          E.store(zNew, K.z, {zIndex});
          scf::YieldOp::create(E.b, E.loc, zNew);
          E.b.setInsertionPointToStart(&zIf.getElseRegion().front());
          scf::YieldOp::create(E.b, E.loc, E.f32(0.0));
        }
        Value zNew = zIf.getResult(0);

        SmallVector<Value> next = gpu_detail::nextMultiset(E, s.d, row);
        for (int64_t j = 0; j < K.g; ++j)
          next.push_back(E.fma(sNew, phiQ[j], st[p + j]));
        for (int64_t j = 0; j < K.g; ++j)
          next.push_back(E.fma(zNew, phiQ[j], st[p + K.g + j]));
        return next;
      });
  return SmallVector<Value>(result.begin() + p, result.end());
}

/// Step 4: add the lanes' partial sums and write y_t for the group.
void emitWriteOutput(Recurrent &K, Value t, ArrayRef<Value> sums) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
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
    for (int64_t j = 0; j < K.g; ++j) {
      Value num = E.f32(0.0), den = E.f32(0.0);
      for (int64_t l = 0; l < K.lanes; ++l) {
        num = E.add(num, E.load(K.partialNum,
                                {E.add(E.idx((l * K.g + j) * s.e), K.col)}));
        den = E.add(den, E.load(K.partialDen, {E.idx(l * K.g + j)}));
      }
      // y = 0 only where the denominator is 0 (SPEC); a state the caller
      // made up may give a negative one.
      Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, den, E.f32(0.0));
      Value yv = E.select(nonzero, E.div(num, den), E.f32(0.0));
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
  SmallVector<Type> workgroup{
      workgroupMemRef({(1 + g) * spec.d}, f32),
      workgroupMemRef({spec.e}, f32),
      workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64),
      workgroupMemRef({2}, f64),
      workgroupMemRef({lanes * g * spec.e}, f32),
      workgroupMemRef({lanes * g}, f32)};

  auto fn = gpu::GPUFuncOp::create(
      builder, loc, name, builder.getFunctionType(args.types, {}), workgroup);
  gpu_detail::setLaunch(builder, fn, recurrentThreadsPerBlock(spec),
                        /*tokensPerBlock=*/0, /*gridY=*/spec.h);

  builder.setInsertionPointToStart(&fn.getBody().front());
  Emitter E(builder, loc);
  Recurrent K{spec, E, elem, g, r, lanes, *symmetricPowerDim(spec.d, spec.p)};
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

  K.tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  K.h = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::y);
  K.b = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::z);
  K.lane = E.div(K.tid, E.idx(spec.e));
  K.col = E.rem(K.tid, E.idx(spec.e));

  // The count c of this state, carried in workgroup memory across tokens.
  Value stateBH = E.add(E.mul(K.b, E.idx(spec.h)), K.h);
  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)),
           [&] { E.store(E.load(K.c, {stateBH}), K.scalars, {E.idx(0)}); });
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
    SmallVector<Value> sums = emitRowWalk(K, firstRow, rowBegin, rowEnd);
    emitWriteOutput(K, t, sums);
    return SmallVector<Value>{};
  });

  E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.tid, E.idx(0)),
           [&] { E.store(E.load(K.scalars, {E.idx(0)}), K.c, {stateBH}); });
  gpu::ReturnOp::create(builder, loc);
  return fn;
}

} // namespace sympow
