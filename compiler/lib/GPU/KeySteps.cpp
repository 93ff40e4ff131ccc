//===- KeySteps.cpp - Key steps copied for warpgroup MMAs -----------------===//

#include "KeySteps.h"

using namespace mlir;

namespace sympow::gpu_detail {

RunCopies::Plan RunCopies::plan(Value src, int64_t heads, Value head,
                                int64_t tileRows, int64_t width, Value dest,
                                int64_t groupRows, int64_t destRowStride,
                                llvm::function_ref<Value(Value r)> rowOf,
                                llvm::function_ref<Value(Value r)> runColumn,
                                llvm::function_ref<Value(Value j, Value c)> at,
                                Value firstColumn, int64_t rowWidth) {
  Emitter &E = t.E;
  int64_t P = t.threads;
  rowWidth = rowWidth ? rowWidth : width;
  Plan plan{src,          dest,  head,     firstColumn,
            heads,        width, rowWidth, tileRows * (width / kRun),
            destRowStride};
  int64_t groupRuns = groupRows * (width / kRun);
  if (P % groupRuns == 0 && plan.runs % P == 0)
    plan.rowsPerPass = P / groupRuns * groupRows;
  Value thread = t.range();
  for (int64_t from = 0; from < plan.runs; from += P) {
    Value r = E.add(thread, t.index(from));
    Pass pass;
    pass.inTile = from + P > plan.runs ? E.ult(r, t.index(plan.runs)) : Value();
    pass.row = rowOf(r);
    pass.column = runColumn(r);
    pass.from = E.add(E.mul(pass.row, t.index(heads * rowWidth)), pass.column);
    pass.to = at(pass.row, pass.column);
    plan.passes.push_back(pass);
    if (plan.rowsPerPass)
      break;
  }
  return plan;
}

RunCopies::Plan RunCopies::rowMajor(Value src, int64_t heads, Value head,
                                    int64_t tileRows, int64_t width, Value dest,
                                    int64_t stride) {
  Emitter &E = t.E;
  int64_t runs = width / kRun;
  return plan(
      src, heads, head, tileRows, width, dest, 1, stride,
      [&](Value r) { return E.div(r, t.index(runs)); },
      [&](Value r) { return E.mul(E.rem(r, t.index(runs)), t.index(kRun)); },
      [&](Value j, Value c) { return E.add(E.mul(j, t.index(stride)), c); });
}

RunCopies::Plan RunCopies::canonical(Value src, int64_t heads, Value head,
                                     int64_t keys, int64_t width, Value dest,
                                     int64_t destAt, Value firstColumn,
                                     int64_t rowWidth) {
  Emitter &E = t.E;
  int64_t pieces = width / kRun;
  return plan(
      src, heads, head, keys, width, dest, 8, kRun,
      [&](Value r) {
        return E.add(E.rem(r, t.index(8)),
                     E.mul(E.div(r, t.index(8 * pieces)), t.index(8)));
      },
      [&](Value r) {
        return E.mul(E.rem(E.div(r, t.index(8)), t.index(pieces)),
                     t.index(kRun));
      },
      [&](Value j, Value c) {
        return E.add(
            canonicalPieceOffset(t, j, E.div(c, t.index(kRun)), keys),
            t.index(destAt));
      },
      firstColumn, rowWidth);
}

void RunCopies::copy(const Plan &plan, Value first, Value count) {
  Emitter &E = t.E;
  int64_t P = t.threads;
  Value base =
      tokenOffset(E, batch, T, first, plan.heads, plan.head, plan.rowWidth);
  if (plan.firstColumn)
    base = E.add(base, plan.firstColumn);
  base = t.splat(base);
  int64_t passes = (plan.runs + P - 1) / P;
  for (int64_t n = 0; n < passes; ++n) {
    Pass pass = plan.passes[plan.rowsPerPass ? 0 : n];
    Value from = pass.from, to = pass.to, row = pass.row, live;
    if (plan.rowsPerPass && n > 0) {
      int64_t rows = n * plan.rowsPerPass;
      from = E.add(from, t.index(rows * plan.heads * plan.rowWidth));
      to = E.add(to, t.index(rows * plan.destRowStride));
      row = E.add(row, t.index(rows));
    }
    if (count) {
      live = E.ult(row, t.splat(count));
      from = E.select(live, from, pass.column);
    }
    t.asyncCopy(plan.src, E.add(base, from), plan.dest, to, kRun, pass.inTile,
                live);
  }
}

void RunCopies::storeOnesColumn(Value dest, int64_t destAt, int64_t keys,
                                int64_t column, Type element) {
  Emitter &E = t.E;
  assert(keys <= t.threads && "a row a thread");
  Value j = t.range();
  Value at =
      E.add(E.mul(E.add(t.index(column / kRun * keys), j), t.index(kRun)),
            t.index(destAt));
  Value slot = E.rem(t.range(kRun), t.index(kRun, kRun));
  Value one =
      E.select(t.eq(slot, t.index(0, kRun)), t.constant(element, 1.0, kRun),
               t.constant(element, 0.0, kRun));
  t.store(one, dest, t.run(at, kRun), t.expand(E.ult(j, t.index(keys)), kRun),
          true);
}

Value canonicalPieceOffset(Tiles &t, Value j, Value piece, int64_t keys) {
  Emitter &E = t.E;
  return E.mul(E.add(E.mul(piece, t.index(keys)), j),
               t.index(RunCopies::kRun));
}

Value keysDescriptor(Tiles &t, Value array, int64_t destAt, int64_t keys,
                     int64_t column) {
  return tile::WarpgroupDescriptorOp::create(
      t.b, t.loc, array, t.E.idx(destAt + column * keys), 0, keys * 16, 128);
}

Value valuesDescriptor(Tiles &t, Value array, int64_t destAt, int64_t keys,
                       int64_t k0) {
  return tile::WarpgroupDescriptorOp::create(
      t.b, t.loc, array, t.E.idx(destAt + k0 * RunCopies::kRun), 0, 128,
      keys * 16);
}

void storeKeyStepGates(Tiles &t, Value keyGates, int64_t K,
                       llvm::function_ref<Value(int64_t perThread)> gatesOf) {
  Emitter &E = t.E;
  OpBuilder &b = t.b;
  assert((K == 32 || K == 64) && "a step's keys are the first warp's lanes");
  int64_t perThread = K / 32;
  Value threadId = gpu::ThreadIdOp::create(b, t.loc, gpu::Dimension::x);
  E.ifThen(E.ult(threadId, E.idx(32)), [&] {
    Value g = gatesOf(perThread);
    Value fromJ = tile::ScanOp::create(b, t.loc, g, K, /*reverse=*/true);
    Value after = E.sub(fromJ, g);
    Value key = t.range(perThread);
    bool contiguous = perThread > 1;
    t.store(after, keyGates, key, nullptr, contiguous);
    t.store(E.exp2Approx(after), keyGates, E.add(key, t.index(K, perThread)),
            nullptr, contiguous);
    t.store(fromJ, keyGates, E.add(key, t.index(2 * K, perThread)),
            E.ult(key, t.index(1, perThread)));
  });
}

} // namespace sympow::gpu_detail
