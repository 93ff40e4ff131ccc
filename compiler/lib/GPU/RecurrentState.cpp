//===- RecurrentState.cpp - recurrent_state, a tile kernel ----------------===//
//
// The first kernel of the recurrent formulation: the state of each (head,
// sequence) split over programs of whole rows, so that one decoding step
// at B = 1 fills the GPU (grid (X, H, B), X = ceil(D / rows per program)).
// Program (x, h, b) owns rows [x Rp, (x + 1) Rp) of S and Z and walks the T
// tokens in order; per token it
//   1. advances the angle count c (f64, uniform) and writes the rotated
//      k_t, v_t and the decay gamma_t into rings of the window's W tokens
//      and the group's scaled, rotated q_t into workgroup memory (f32),
//      between barriers;
//   2. walks its row tiles: thread t holds R adjacent columns of one row
//      (16-byte accesses for R = 4) and computes phi of that row once;
//      accumulates phi(q_t) S and phi(q_t) Z against the state before the
//      fold, then folds the window's oldest token (all of them at the last
//      step): S = gamma S + phi(k) v, Z = gamma Z + phi(k);
//   3. sums the tiles' columns (sympow_tile.column_sum) and writes the
//      partial numerators num[b, t, hq, x, :] and denominators
//      den[b, t, hq, x] for recurrent_output;
//   4. at T = 1 (a decoding step) arrives at the state's counter
//      (sympow_tile.last_arrival), and the last program of the state
//      reduces the partial sums into y as recurrent_output would, which
//      then is not launched.
// Accuracy (as the one-block kernel before it). phi(q) . S sums D products
// of both signs whose magnitudes add up to (|q| . |k_j|)^p per key, while
// the true value is (q . k_j)^p: for p = 4 and normal data the ratio is
// often 1e3 .. 1e6 on the first tokens of a sequence. So the state lags the
// sequence by a window of W tokens: recurrent_output takes tokens
// t - W + 1 .. t directly and only older ones through the partial sums.
// For f32 inputs phi, the products with the state, the update and the
// partial sums are f64 (S, Z rounded to f32 once per token).
// c itself is written by recurrent_output (at T = 1 by the last program
// here), after every program here has read it.
//
//===----------------------------------------------------------------------===//

#include "RecurrentCommon.h"
#include "SymmetricPowerTiles.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Support/SymmetricPowerDim.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace sympow::recurrent {

using gpu_detail::nextRows;
using gpu_detail::rowProducts;
using gpu_detail::rowScales;
using gpu_detail::unrankRows;

LogicalResult buildRecurrentState(OpBuilder &b, gpu::GPUModuleOp module,
                                  const AttentionKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  Location loc = module.getLoc();
  StateSplit split = stateSplit(s);
  int64_t dim = *symmetricPowerDim(s.d, s.p), g = s.hq / s.h;
  int64_t R = split.perThread, P = split.threads, Q = split.threadsPerRow;
  Type f32 = b.getF32Type();
  Type acc = accumulatorType(ctx, s);
  using gpu_detail::workgroupMemRef;
  // The window's rotated keys (token j in row j mod W), the group's queries.
  // The window's values and decays gamma_j (token j in row j mod W) likewise:
  // a thread folds a token into each of its rows, and reads its gamma here
  // rather than from global memory per row tile.
  SmallVector<Type> workgroup{
      workgroupMemRef({kWindow * s.d}, f32), workgroupMemRef({g * s.d}, f32),
      workgroupMemRef({kWindow * s.e}, f32), workgroupMemRef({kWindow}, acc)};
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = createTileKernel(
      b, module, s, runtime::KernelId::RecurrentState, P,
      {split.programs, s.h, tile::KernelAttr::kBatch}, workgroup, args);
  if (split.programsPerSM > 2) // else ptxas' own choice
    tile::setMinBlocksPerSM(fn, split.programsPerSM);
  Emitter E(b, loc);
  Tiles t{b, loc, E, P};
  using runtime::KernelArg;
  Value q = args.get(fn, KernelArg::Q), k = args.get(fn, KernelArg::K),
        v = args.get(fn, KernelArg::V), logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma),
        beta = args.get(fn, KernelArg::Beta), S = args.get(fn, KernelArg::S),
        Z = args.get(fn, KernelArg::Z), c = args.get(fn, KernelArg::C),
        num = args.get(fn, KernelArg::PartialNum),
        den = args.get(fn, KernelArg::PartialDen);
  Value keys = fn.getWorkgroupAttributions()[0],
        queries = fn.getWorkgroupAttributions()[1],
        values = fn.getWorkgroupAttributions()[2],
        decays = fn.getWorkgroupAttributions()[3];

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value x = ids.x, h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value bh = E.add(E.mul(batch, E.idx(s.h)), h);
  Value firstRow = E.mul(x, E.idx(split.rowsPerProgram()));

  // Per thread (one element each): its row in a tile and its columns.
  Value thread = t.range();
  Value rowInTile = E.div(thread, t.index(Q));
  Value ownsZ = t.eq(E.rem(thread, t.index(Q)), t.index(0));
  // Per element (R per thread): its place in the tile and its column.
  Value element = t.range(R);
  Value column = E.rem(element, t.index(s.e, R));

  // Thread t's rows: rowInTile * steps + step of the program's rows, so a
  // step moves each thread to the next multiset (O(p)); the first is
  // unranked once (beyond D: clamped, and masked everywhere).
  Value threadRow =
      E.add(t.splat(firstRow), E.mul(rowInTile, t.index(split.steps)));
  SmallVector<Value> firstRows =
      unrankRows(t, s.p, s.d, E.min(threadRow, t.index(dim - 1)));
  Value stateRows = t.splat(E.mul(bh, E.idx(dim)));
  Value count0 = s.rotates() ? E.load(c, {bh}) : E.f64(0.0);
  auto counted = E.forLoop(
      E.idx(0), T, E.idx(1), {count0}, [&](Value token, ValueRange st) {
        Value count = st[0];
        if (s.rotates())
          count = E.add(count, countStep(E, s, beta, batch, T, h, token));

        // 1. k_t into the window's ring, the group's q_t after it.
        gpu::BarrierOp::create(b, loc); // the previous token's readers are done
        int64_t vectors = (1 + g) * s.d;
        for (int64_t from = 0; from < vectors; from += P) {
          Value j = E.add(thread, t.index(from));
          Value valid = E.ult(j, t.index(vectors));
          Value vec = E.div(j, t.index(s.d));
          Value d = E.rem(j, t.index(s.d));
          Value isKey = t.eq(vec, t.index(0));
          Value isQuery = arith::XOrIOp::create(
              b, loc, isKey,
              t.splat(arith::ConstantIntOp::create(b, loc, 1, 1)));
          Value keyMask = t.logicalAnd(valid, isKey);
          Value queryMask = t.logicalAnd(valid, isQuery);
          Value kBase = t.splat(tokenOffset(E, batch, T, token, s.h, h, s.d));
          // Query head h g + vec - 1 (vec 0 reads nothing from q).
          Value qHead =
              E.sub(E.add(t.splat(E.mul(h, E.idx(g))), vec), t.index(1));
          Value qBase = E.mul(
              E.add(t.splat(E.mul(E.add(E.mul(batch, T), token), E.idx(s.hq))),
                    qHead),
              t.index(s.d));
          Value partner = partnerDim(t, s, d);
          auto read = [&](Value at) {
            Value fromK = t.convert(t.load(k, E.add(kBase, at), keyMask), f32);
            Value fromQ =
                E.mul(t.convert(t.load(q, E.add(qBase, at), queryMask), f32),
                      t.constant(f32, s.effectiveScale()));
            return E.select(isKey, fromK, fromQ);
          };
          Value value = rotate(t, s, d, read(d), read(partner), count);
          Value slot = E.rem(token, E.idx(kWindow));
          t.store(value, keys, E.add(t.splat(E.mul(slot, E.idx(s.d))), d),
                  keyMask);
          t.store(value, queries, E.sub(j, t.index(s.d)), queryMask);
        }
        // v_t into the window's ring: the row tiles read it from there.
        Value vSlot = E.mul(E.rem(token, E.idx(kWindow)), E.idx(s.e));
        Value vBase = tokenOffset(E, batch, T, token, s.h, h, s.e);
        for (int64_t from = 0; from < s.e; from += P) {
          Value j = E.add(thread, t.index(from));
          Value valid = E.ult(j, t.index(s.e));
          Value vt = t.convert(t.load(v, E.add(t.splat(vBase), j), valid), f32);
          t.store(vt, values, E.add(t.splat(vSlot), j), valid);
        }
        // gamma_t into its ring, by the first thread, which alone loads the
        // gate: a load every thread made was one more on each one's chain.
        {
          Value first = t.eq(thread, t.index(0));
          Value gate =
              logGate(E, s, logG, logGamma, batch, T, h, token, &t, first);
          t.store(t.convert(E.exp(gate), acc), decays,
                  t.splat(E.rem(token, E.idx(kWindow))), first);
        }
        gpu::BarrierOp::create(b, loc);

        // The window's oldest token leaves it; at the last step all of it.
        Value next = E.add(token, E.idx(1));
        Value full = E.cmpi(arith::CmpIPredicate::uge, next, E.idx(kWindow));
        Value foldBegin = E.select(full, E.sub(next, E.idx(kWindow)), E.idx(0));
        Value isLast = E.cmpi(arith::CmpIPredicate::eq, next, T);
        Value foldEnd = E.select(
            isLast, next, E.select(full, E.add(foldBegin, E.idx(1)), E.idx(0)));

        // 2. The row tiles: per query head the sums phi(q) S (R per thread)
        // and phi(q) Z (one per thread), each thread stepping its multiset.
        SmallVector<Value> inits(firstRows.begin(), firstRows.end());
        for (int64_t j = 0; j < g; ++j)
          inits.push_back(t.constant(acc, 0.0, R));
        for (int64_t j = 0; j < g; ++j)
          inits.push_back(t.constant(acc, 0.0));
        auto sums = E.forLoop(
            E.idx(0), E.idx(split.steps), E.idx(1), inits,
            [&](Value step, ValueRange st) {
              SmallVector<Value> row(st.begin(), st.begin() + s.p);
              Value rows = E.add(threadRow, t.splat(step));
              Value inside = E.ult(rows, t.index(dim));
              Value scale = rowScales(t, acc, row);

              Value insideR = t.expand(inside, R);
              Value zAt = E.add(stateRows, rows);
              Value sAt =
                  E.add(E.mul(t.expand(zAt, R), t.index(s.e, R)), column);
              Value sOld = t.convert(t.load(S, sAt, insideR, true), acc);
              // Z has one entry per row: the row's first thread holds it (the
              // others' 0 adds nothing to the row's denominator).
              Value zMask = t.logicalAnd(inside, ownsZ);
              Value zOld = t.convert(t.load(Z, zAt, zMask), acc);

              SmallVector<Value> out;
              SmallVector<Value> nums(st.begin() + s.p, st.begin() + s.p + g),
                  dens(st.begin() + s.p + g, st.end());
              for (int64_t j = 0; j < g; ++j) {
                Value phiQ = E.mul(
                    scale, rowProducts(t, acc, queries, j * s.d, row, inside));
                nums[j] = E.fma(t.expand(phiQ, R), sOld, nums[j]);
                dens[j] = E.fma(phiQ, zOld, dens[j]);
              }

              auto folded = E.forLoop(
                  foldBegin, foldEnd, E.idx(1), {sOld, zOld},
                  [&](Value j, ValueRange state) {
                    Value slot = E.rem(j, E.idx(kWindow));
                    Value gamma = E.load(decays, {slot});
                    // The ring's row of token j: its offset is uniform.
                    Value ringRow = E.mul(slot, E.idx(s.d));
                    SmallVector<Value> ringIndex;
                    for (Value index : row)
                      ringIndex.push_back(E.add(index, t.splat(ringRow)));
                    Value phiK = E.mul(
                        scale, rowProducts(t, acc, keys, 0, ringIndex, inside));
                    Value vAt =
                        E.add(t.splat(E.mul(slot, E.idx(s.e)), R), column);
                    Value vj =
                        t.convert(t.load(values, vAt, nullptr, true), acc);
                    Value gammaR = t.splat(gamma, R);
                    return SmallVector<Value>{
                        E.fma(t.expand(phiK, R), vj, E.mul(gammaR, state[0])),
                        E.fma(t.splat(gamma), state[1], phiK)};
                  });
              t.store(t.convert(folded[0], f32), S, sAt, insideR, true);
              t.store(t.convert(folded[1], f32), Z, zAt, zMask);

              out.append(nextRows(t, s.d, row));
              out.append(nums);
              out.append(dens);
              return out;
            });

        // 3. The columns' sums, written for recurrent_output.
        for (int64_t j = 0; j < g; ++j) {
          Value numSum = t.columnSum(sums[s.p + j], s.e);
          Value denSum = t.columnSum(sums[s.p + g + j], Q);
          Value hq = E.add(E.mul(h, E.idx(g)), E.idx(j));
          Value slot = E.add(
              E.mul(
                  E.add(E.mul(E.add(E.mul(batch, T), token), E.idx(s.hq)), hq),
                  E.idx(split.programs)),
              x);
          t.store(numSum, num,
                  E.add(t.splat(E.mul(slot, E.idx(s.e)), R), element),
                  E.ult(element, t.index(s.e, R)), true);
          t.store(denSum, den, t.splat(slot), t.eq(thread, t.index(0)));
        }
        return SmallVector<Value>{count};
      });

  // 4. One token (a decoding step): the last program of the state to
  // arrive reduces every program's partial sums into y, for each query
  // head of the group, so no second kernel is launched.
  Value arrivals = args.get(fn, KernelArg::Arrivals);
  OutputBuffers io = outputBuffers(args, fn);
  io.stagedQueries = queries;
  io.stagedKeys = keys;
  io.stagedValues = values;
  io.stagedDecays = decays;
  io.stagedCount = counted[0];
  E.ifThen(
      E.cmpi(arith::CmpIPredicate::eq, T, E.idx(kTokensStateKernelFinishes)),
      [&] {
        Value epoch =
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), kArrivalEpoch);
        Value last = tile::LastArrivalOp::create(
            b, loc, b.getI1Type(), arrivals, bh, epoch, split.programs);
        E.ifThen(last, [&] {
          // A loop, not g copies: the copies' hoisted addresses spilled at
          // the cap of three programs per SM.
          E.forLoop(E.mul(h, E.idx(g)), E.mul(E.add(h, E.idx(1)), E.idx(g)),
                    E.idx(1), {}, [&](Value hq, ValueRange) {
                      emitTokenOutput(t, s, io, E.idx(0), hq, batch, T);
                      return SmallVector<Value>{};
                    });
        });
      });
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::recurrent
