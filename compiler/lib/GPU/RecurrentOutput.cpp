//===- RecurrentOutput.cpp - recurrent_output, a tile kernel --------------===//
//
// The second kernel of the recurrent formulation: program (t, hq, b) turns
// the partial sums recurrent_state left for token t of query head hq into
// y[b, t, hq]:
//   num = exp(G_t - G_{t-W}) sum_x num[b, t, hq, x] + sum_a w_a v_{t-a}
//   den = exp(G_t - G_{t-W}) sum_x den[b, t, hq, x] + sum_a w_a
//   w_a = exp(G_t - G_{t-a}) ((R(c_t - c_{t-a}) q'_t) . k_{t-a})^p
// over the window's ages a < min(t + 1, W), and y = num / den (0 where
// den = 0). Gate and angle differences are sums over at most W tokens (f64),
// so no program walks the sequence; rotating q by the relative angle is
// SPEC's R(c_t) q . R(c_j) k. The program of the last token of each key
// head's first query head writes the final count c. At T = 1
// recurrent_state's last program per state does the same (emitTokenOutput)
// and this kernel is not launched.
//
//===----------------------------------------------------------------------===//

#include "RecurrentCommon.h"

using namespace mlir;

namespace sympow::recurrent {

void emitTokenOutput(Tiles &t, const AttentionKernelSpec &s,
                     const OutputBuffers &io, Value token, Value hq,
                     Value batch, Value T) {
  OpBuilder &b = t.b;
  MLIRContext *ctx = b.getContext();
  Location loc = t.loc;
  Emitter &E = t.E;
  StateSplit split = stateSplit(s);
  int64_t g = s.hq / s.h, X = split.programs;
  int64_t R = split.perThread, P = split.threads;
  int64_t rowsPerTile = split.rowsPerTile;
  Type f32 = b.getF32Type();
  Type acc = accumulatorType(ctx, s);
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  Value q = io.q, k = io.k, v = io.v, logG = io.logG, logGamma = io.logGamma,
        beta = io.beta, y = io.y, c = io.c, num = io.num, den = io.den;
  Value h = E.div(hq, E.idx(g));
  Value thread = t.range();
  Value element = t.range(R);
  Value column = E.rem(element, t.index(s.e, R));
  auto gate = [&](Value j) {
    return logGate(E, s, logG, logGamma, batch, T, h, j);
  };

  // The partial sums: [X, e] numerators read a tile of rows at a time,
  // X denominators P at a time.
  Value slot = E.mul(
      E.add(E.mul(E.add(E.mul(batch, T), token), E.idx(s.hq)), hq), E.idx(X));
  Value numRows = E.forLoop(
      E.idx(0), E.idx(X), E.idx(rowsPerTile), {t.constant(acc, 0.0, R)},
      [&](Value row, ValueRange st) {
        Value at =
            E.add(t.splat(E.mul(E.add(slot, row), E.idx(s.e)), R), element);
        Value inside = E.ult(E.add(t.splat(E.mul(row, E.idx(s.e)), R), element),
                             t.index(X * s.e, R));
        return SmallVector<Value>{E.add(st[0], t.load(num, at, inside, true))};
      })[0];
  Value denRows = E.forLoop(
      E.idx(0), E.idx(X), E.idx(P), {t.constant(acc, 0.0)},
      [&](Value row, ValueRange st) {
        Value at = E.add(t.splat(E.add(slot, row)), thread);
        Value inside = E.ult(E.add(t.splat(row), thread), t.index(X));
        return SmallVector<Value>{E.add(st[0], t.load(den, at, inside))};
      })[0];
  Value stateNum = t.columnSum(numRows, s.e);
  Value stateDen = t.columnSum(denRows, 1);

  // The state holds the tokens before the window: weight
  // exp(G_t - G_{t-W}), the initial state's G being 0.
  Value ages = E.min(E.add(token, E.idx(1)), E.idx(kWindow));
  Value oldest = E.sub(E.add(token, E.idx(1)), ages);
  // Staged (a decoding step, token 0): recurrent_state's rings hold the
  // token in slot 0, its decay, and q and k rotated by the same count c,
  // so that R(c) q . R(c) k is SPEC's product at age 0.
  bool staged = bool(io.stagedKeys);
  Value stateWeight;
  if (staged) {
    stateWeight = E.load(io.stagedDecays, {E.idx(0)});
  } else {
    Value stateLog =
        E.forLoop(oldest, E.add(token, E.idx(1)), E.idx(1), {E.f64(0.0)},
                  [&](Value j, ValueRange st) {
                    return SmallVector<Value>{E.add(st[0], gate(j))};
                  })[0];
    stateWeight = E.convert(E.exp(stateLog), acc);
  }

  // The query, scaled: each dim and its pair partner, f32; staged, the
  // group's query hq - h g as recurrent_state scaled and rotated it.
  Value qBase = t.splat(tokenOffset(E, batch, T, token, s.hq, hq, s.d));
  Value stagedQuery =
      staged ? t.splat(E.mul(E.sub(hq, E.mul(h, E.idx(g))), E.idx(s.d)))
             : Value();
  auto window = E.forLoop(
      E.idx(0), ages, E.idx(1), {t.constant(acc, 0.0, R), t.constant(acc, 0.0)},
      [&](Value age, ValueRange st) {
        Value j = E.sub(token, age);
        // Sums over tokens j + 1 .. t: the log weight and the angle (none
        // for the staged token, at age 0).
        SmallVector<Value> between = {E.f64(0.0), E.f64(0.0)};
        if (!staged)
          between = E.forLoop(
              E.add(j, E.idx(1)), E.add(token, E.idx(1)), E.idx(1), between,
              [&](Value i, ValueRange sum) {
                Value step = s.rotates() ? countStep(E, s, beta, batch, T, h, i)
                                         : E.f64(0.0);
                return SmallVector<Value>{E.add(sum[0], gate(i)),
                                          E.add(sum[1], step)};
              });
        Value kBase = t.splat(tokenOffset(E, batch, T, j, s.h, h, s.d));
        Value dot = t.constant(acc, 0.0);
        for (int64_t from = 0; from < s.d; from += P) {
          Value d = E.add(thread, t.index(from));
          Value inside = E.ult(d, t.index(s.d));
          Value qd, kd;
          if (staged) {
            qd = t.load(io.stagedQueries, E.add(stagedQuery, d), inside);
            kd = t.load(io.stagedKeys, d, inside);
          } else {
            auto readQ = [&](Value at) {
              return E.mul(t.convert(t.load(q, E.add(qBase, at), inside), f32),
                           t.constant(f32, s.effectiveScale()));
            };
            qd = rotate(t, s, d, readQ(d), readQ(partnerDim(t, s, d)),
                        between[1]);
            kd = t.load(k, E.add(kBase, d), inside);
          }
          dot = E.fma(t.convert(qd, acc), t.convert(kd, acc), dot);
        }
        dot = t.columnSum(dot, 1);
        Value power = dot;
        for (int64_t i = 1; i < s.p; ++i)
          power = E.mul(power, dot);
        // exp(G_t - G_j) <= 1: the gates are at most 1.
        Value w = E.mul(t.splat(E.convert(E.exp(between[0]), acc)), power);
        Value vAt = column, vFrom = io.stagedValues;
        if (!staged) {
          vAt = E.add(t.splat(tokenOffset(E, batch, T, j, s.h, h, s.e), R),
                      column);
          vFrom = v;
        }
        Value vj = t.convert(t.load(vFrom, vAt, nullptr, true), acc);
        return SmallVector<Value>{E.fma(t.expand(w, R), vj, st[0]),
                                  E.add(st[1], w)};
      });

  Value numer = E.fma(t.splat(stateWeight, R), stateNum, window[0]);
  Value denom = t.expand(E.fma(t.splat(stateWeight), stateDen, window[1]), R);
  // y = 0 only where the denominator is 0 (SPEC); a state the caller made
  // up may give a negative one.
  Value zero = t.constant(acc, 0.0, R);
  Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, denom, zero);
  Value yv = E.select(
      nonzero, E.div(numer, E.select(nonzero, denom, t.constant(acc, 1.0, R))),
      zero);
  Value yAt = E.add(t.splat(tokenOffset(E, batch, T, token, s.hq, hq, s.e), R),
                    element);
  t.store(t.convert(yv, elem), y, yAt, E.ult(element, t.index(s.e, R)), true);

  if (s.rotates()) {
    // c after the last token, summed in the order recurrent_state does.
    Value last = E.cmpi(arith::CmpIPredicate::eq, E.add(token, E.idx(1)), T);
    Value first =
        E.cmpi(arith::CmpIPredicate::eq, E.rem(hq, E.idx(g)), E.idx(0));
    E.ifThen(arith::AndIOp::create(b, loc, last, first), [&] {
      Value bh = E.add(E.mul(batch, E.idx(s.h)), h);
      Value count =
          staged
              ? io.stagedCount
              : E.forLoop(E.idx(0), T, E.idx(1), {E.load(c, {bh})},
                          [&](Value i, ValueRange st) {
                            return SmallVector<Value>{E.add(
                                st[0], countStep(E, s, beta, batch, T, h, i))};
                          })[0];
      t.store(t.splat(count), c, t.splat(bh), t.eq(thread, t.index(0)));
    });
  }
}

LogicalResult buildRecurrentOutput(OpBuilder &b, gpu::GPUModuleOp module,
                                   const AttentionKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  StateSplit split = stateSplit(s);
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = createTileKernel(
      b, module, s, runtime::KernelId::RecurrentOutput, split.threads,
      {tile::KernelAttr::perTokens(1), s.hq, tile::KernelAttr::kBatch}, {},
      args);
  Emitter E(b, loc);
  Tiles t{b, loc, E, split.threads};
  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  emitTokenOutput(t, s, outputBuffers(args, fn), ids.x, ids.y, ids.z,
                  args.seqLen(b, fn));
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

OutputBuffers outputBuffers(const gpu_detail::KernelArguments &args,
                            gpu::GPUFuncOp fn) {
  using runtime::KernelArg;
  OutputBuffers io;
  io.q = args.get(fn, KernelArg::Q);
  io.k = args.get(fn, KernelArg::K);
  io.v = args.get(fn, KernelArg::V);
  io.logG = args.get(fn, KernelArg::LogG);
  io.logGamma = args.get(fn, KernelArg::LogGamma);
  io.beta = args.get(fn, KernelArg::Beta);
  io.y = args.get(fn, KernelArg::Y);
  io.c = args.get(fn, KernelArg::C);
  io.num = args.get(fn, KernelArg::PartialNum);
  io.den = args.get(fn, KernelArg::PartialDen);
  return io;
}

} // namespace sympow::recurrent
