//===- ChunkOutputF32.cpp - chunk_output for f32 inputs, a tile kernel ----===//
//
// y_i from the state before the chunk and the causal block inside it, in
// f32 FMA and log space (the 16-bit layers' chunk_output, ChunkOutput.cpp,
// multiplies on tensor cores). Program (chunk n, query head, sequence): the
// chunk's scaled, rotated queries and rotated keys and its gate prefix
// staged in workgroup memory; threads form L row lanes of e columns
// (stateRowLanes), thread (lane, c) computing column c of the rows i = w L
// + lane, w = 0, 1, ... Per row:
//   - phi(q_i) . S[:, c] and phi(q_i) . Z over the state's D rows (dS, dZ
//     as chunk_scan left them: the state before the chunk);
//   - s_ij = G_i - G_j + p log|q_i . k_j| for j <= i, its maximum m, then
//     sum_j e^(s_ij - m) v_j[c] and sum_j e^(s_ij - m);
//   - both combined at the larger of their scales, so nothing overflows.
// The rows of one step w share their key loop (keys up to the step's last
// row; later keys masked per row).
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "SymmetricPowerRows.h"
#include "SymmetricPowerTiles.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"

#include <limits>

using namespace mlir;

namespace sympow::chunked {

LogicalResult buildOutputF32(OpBuilder &b, gpu::GPUModuleOp module,
                             const AttentionKernelSpec &s, int64_t C,
                             int64_t dim) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  Type f32 = b.getF32Type();
  int64_t P = chunkedThreadsPerBlock(s), lanes = gpu_detail::stateRowLanes(s);
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn =
      createF32ChunkKernel(b, module, s, runtime::KernelId::ChunkOutput, C,
                           s.hq, {C * s.d, C * s.d, C}, args, C);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  using runtime::KernelArg;
  Value q = args.get(fn, KernelArg::Q), k = args.get(fn, KernelArg::K),
        v = args.get(fn, KernelArg::V), logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma),
        counts = args.get(fn, KernelArg::Counts),
        prefixS = args.get(fn, KernelArg::ChunkS),
        prefixZ = args.get(fn, KernelArg::ChunkZ),
        y = args.get(fn, KernelArg::Y);
  auto wg = fn.getWorkgroupAttributions();
  Value qs = wg[0], ks = wg[1], gp = wg[2];

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value n = ids.x, hq = ids.y, batch = ids.z;
  Value h = E.div(hq, E.idx(s.hq / s.h));
  Value T = args.seqLen(b, fn);
  Value t0 = E.mul(n, E.idx(C));
  stageGatePrefix(t, s, logG, logGamma, batch, T, h, t0, C, gp);
  stageRotatedRows(t, s, q, s.hq, hq, batch, T, t0, C, counts, h,
                   s.effectiveScale(), qs);
  stageRotatedRows(t, s, k, s.h, h, batch, T, t0, C, counts, h, 1.0, ks);
  gpu::BarrierOp::create(b, loc);

  // [b, n, h] of the chunk arrays: tokenOffset with N chunks for T tokens.
  Value chunks = E.div(E.add(T, E.idx(C - 1)), E.idx(C));
  Value sBase = gpu_detail::tokenOffset(E, batch, chunks, n, s.h, h, dim * s.e);
  Value zBase = gpu_detail::tokenOffset(E, batch, chunks, n, s.h, h, dim);
  Value thread = t.range();
  Value lane = E.div(thread, t.index(s.e));
  Value column = E.rem(thread, t.index(s.e));
  auto f32s = [&](double x) { return t.constant(f32, x); };
  Value negInf = f32s(-std::numeric_limits<float>::infinity());
  auto isFinite = [&](Value x) {
    return E.cmpf(arith::CmpFPredicate::ONE, x, negInf);
  };
  int64_t steps = (C + lanes - 1) / lanes;
  E.forLoop(E.idx(0), E.idx(steps), E.idx(1), {}, [&](Value w, ValueRange) {
    Value i = E.add(t.splat(E.mul(w, E.idx(lanes))), lane);
    Value rowLive = E.ult(i, t.index(C));
    Value qRow = E.mul(E.min(i, t.index(C - 1)), t.index(s.d));

    // The state before the chunk: phi(q_i) . S[:, c] and phi(q_i) . Z, its
    // rows walked in order (the multiset is the same for every thread).
    SmallVector<Value> init(s.p, E.idx(0));
    init.append({f32s(0.0), f32s(0.0)});
    auto walk = E.forLoop(
        E.idx(0), E.idx(dim), E.idx(1), init, [&](Value row, ValueRange st) {
          ValueRange tuple = st.take_front(s.p);
          SmallVector<Value> qIndex;
          for (Value index : tuple)
            qIndex.push_back(E.add(qRow, t.splat(index)));
          Value phi = E.mul(t.splat(gpu_detail::multisetScale(E, tuple)),
                            gpu_detail::rowProducts(t, f32, qs, 0, qIndex, {}));
          Value sv = t.load(
              prefixS,
              E.add(t.splat(E.add(sBase, E.mul(row, E.idx(s.e)))), column), {});
          Value zv = t.splat(E.load(prefixZ, {E.add(zBase, row)}));
          SmallVector<Value> next = gpu_detail::nextMultiset(E, s.d, tuple);
          next.append({E.fma(phi, sv, st[s.p]), E.fma(phi, zv, st[s.p + 1])});
          return next;
        });
    Value ns = walk[s.p], ds = walk[s.p + 1];

    // Inside the chunk: keys up to the step's last row.
    Value gi = t.load(gp, E.min(i, t.index(C - 1)), {});
    Value end = E.min(E.mul(E.add(w, E.idx(1)), E.idx(lanes)), E.idx(C));
    auto score = [&](Value j) {
      Value kRow = E.mul(j, E.idx(s.d));
      Value dot =
          E.forLoop(E.idx(0), E.idx(s.d), E.idx(1), {f32s(0.0)},
                    [&](Value x, ValueRange acc) {
                      Value qx = t.load(qs, E.add(qRow, t.splat(x)), {});
                      Value kx = E.load(ks, {E.add(kRow, x)});
                      return SmallVector<Value>{E.fma(qx, t.splat(kx), acc[0])};
                    })[0];
      Value logPow = E.mul(f32s(static_cast<double>(s.p)), E.log(E.abs(dot)));
      Value valid =
          t.logicalAnd(t.splat(E.ult(E.add(t0, j), T)),
                       E.cmpi(arith::CmpIPredicate::ule, t.splat(j), i));
      return E.select(valid, E.add(E.sub(gi, t.splat(E.load(gp, {j}))), logPow),
                      negInf);
    };
    Value m = E.forLoop(E.idx(0), end, E.idx(1), {negInf},
                        [&](Value j, ValueRange acc) {
                          return SmallVector<Value>{E.max(acc[0], score(j))};
                        })[0];
    Value mFinite = isFinite(m);
    Value mSafe = E.select(mFinite, m, f32s(0.0));
    auto sums = E.forLoop(
        E.idx(0), end, E.idx(1), {f32s(0.0), f32s(0.0)},
        [&](Value j, ValueRange acc) {
          Value sij = score(j);
          Value weight =
              E.select(isFinite(sij), E.exp(E.sub(sij, mSafe)), f32s(0.0));
          Value token = E.min(E.add(t0, j), E.sub(T, E.idx(1)));
          Value vBase =
              gpu_detail::tokenOffset(E, batch, T, token, s.h, h, s.e);
          Value vj =
              t.convert(t.load(v, E.add(t.splat(vBase), column), {}), f32);
          // Keys past the row add nothing, not even 0 * v_j.
          Value live = isFinite(sij);
          return SmallVector<Value>{
              E.select(live, E.fma(weight, vj, acc[0]), acc[0]),
              E.add(acc[1], weight)};
        });

    // Combine at the larger of the two scales, so nothing overflows:
    // y = (num e^(m-M) + ns e^(G_i-M)) / (den e^(m-M) + ds e^(G_i-M)).
    // A state built from keys gives ds >= 0; any other state may not, so
    // its size is |ds| and its sign stays in the sums (SPEC: y = 0 only
    // where the denominator is 0).
    Value hasState = E.cmpf(arith::CmpFPredicate::ONE, ds, f32s(0.0));
    Value absDs = E.select(hasState, E.abs(ds), f32s(1.0));
    Value stateScale = E.select(hasState, E.add(gi, E.log(absDs)), negInf);
    Value M = E.max(m, stateScale);
    Value any = isFinite(M);
    Value MSafe = E.select(any, M, f32s(0.0));
    Value blockWeight =
        E.select(mFinite, E.exp(E.sub(mSafe, MSafe)), f32s(0.0));
    Value stateWeight = E.select(any, E.exp(E.sub(gi, MSafe)), f32s(0.0));
    Value num = E.add(E.mul(sums[0], blockWeight), E.mul(ns, stateWeight));
    Value den = E.add(E.mul(sums[1], blockWeight), E.mul(ds, stateWeight));
    Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, den, f32s(0.0));
    Value yv = E.select(nonzero, E.div(num, E.select(nonzero, den, f32s(1.0))),
                        f32s(0.0));
    Value token = E.add(t.splat(t0), i);
    Value yAt = E.add(
        gpu_detail::tokenOffsets(t, batch, T, t0, i, s.hq, hq, s.e), column);
    t.store(t.convert(yv, cast<MemRefType>(y.getType()).getElementType()), y,
            yAt, t.logicalAnd(rowLive, E.ult(token, t.splat(T))));
    return SmallVector<Value>{};
  });
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
