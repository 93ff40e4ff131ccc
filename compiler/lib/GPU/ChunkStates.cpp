//===- ChunkStates.cpp - chunk_states, a tile kernel for f32 inputs -------===//
//
// Each chunk's own contribution to the state, in f32 FMA (the 16-bit
// layers' chunk_state_pass multiplies split bf16 halves on tensor cores,
// about 16 bits; f32 layers keep full f32 accuracy here):
//   dS_n = sum_j w_j phi(k_j) (x) v_j, dZ_n = sum_j w_j phi(k_j),
//   w_j = exp(G_last - G_j), decay_n = G_last,
// with G the log gates summed from the chunk's start (every weight <= 1).
// chunk_scan then sums them into the state before each chunk.
//
// Program (chunk n, head h, sequence b): the chunk's rotated keys, values
// and weights staged in workgroup memory; threads form L row lanes of e
// columns (stateRowLanes), thread (lane, c) owning column c of the rows
// [lane ceil(D / L), ...) of the state, one row at a time, each a sum over
// the chunk's tokens.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "SymmetricPowerTiles.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"

using namespace mlir;

namespace sympow::chunked {

using gpu_detail::nextRows;
using gpu_detail::rowProducts;
using gpu_detail::rowScales;
using gpu_detail::unrankRows;

LogicalResult buildStates(OpBuilder &b, gpu::GPUModuleOp module,
                          const AttentionKernelSpec &s, int64_t C,
                          int64_t dim) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  Type f32 = b.getF32Type();
  int64_t P = chunkedThreadsPerBlock(s), lanes = gpu_detail::stateRowLanes(s);
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn =
      createF32ChunkKernel(b, module, s, runtime::KernelId::ChunkStates, C, s.h,
                           {C * s.d, C * s.e, C}, args, /*chunk=*/0);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  using runtime::KernelArg;
  Value k = args.get(fn, KernelArg::K), v = args.get(fn, KernelArg::V),
        logG = args.get(fn, KernelArg::LogG),
        logGamma = args.get(fn, KernelArg::LogGamma),
        counts = args.get(fn, KernelArg::Counts),
        dS = args.get(fn, KernelArg::ChunkS),
        dZ = args.get(fn, KernelArg::ChunkZ),
        decay = args.get(fn, KernelArg::Decay);
  auto wg = fn.getWorkgroupAttributions();
  Value keys = wg[0], values = wg[1], weights = wg[2];

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value n = ids.x, h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value t0 = E.mul(n, E.idx(C));
  Value valid = E.min(E.idx(C), E.sub(T, t0));
  Value thread = t.range();
  Value first = t.eq(thread, t.index(0));
  // [b, n, h] of the chunk arrays: tokenOffset with N chunks for T tokens.
  Value chunks = E.div(E.add(T, E.idx(C - 1)), E.idx(C));
  auto chunkOffset = [&](int64_t width) {
    return gpu_detail::tokenOffset(E, batch, chunks, n, s.h, h, width);
  };

  // The weights: G_j first, then exp(G_last - G_j) (0 past T); decay_n =
  // G_last, once every thread has read it.
  stageGatePrefix(t, s, logG, logGamma, batch, T, h, t0, C, weights);
  gpu::BarrierOp::create(b, loc);
  Value last = E.load(weights, {E.idx(C - 1)});
  gpu::BarrierOp::create(b, loc);
  t.forEachItem(C, [&](Value j, Value inChunk) {
    Value g = t.load(weights, j, inChunk);
    Value w = E.select(E.ult(j, t.splat(valid)), E.exp(E.sub(t.splat(last), g)),
                       t.constant(f32, 0.0));
    t.store(w, weights, j, inChunk);
  });
  t.store(t.splat(last), decay, t.splat(chunkOffset(1)), first);
  stageRotatedRows(t, s, k, s.h, h, batch, T, t0, C, counts, h, 1.0, keys);
  t.forEachItem(C * s.e, [&](Value item, Value inTile) {
    Value j = E.div(item, t.index(s.e)), c = E.rem(item, t.index(s.e));
    Value live = t.logicalAnd(inTile, E.ult(j, t.splat(valid)));
    Value at =
        E.add(gpu_detail::tokenOffsets(t, batch, T, t0, j, s.h, h, s.e), c);
    t.store(t.convert(t.load(v, at, live), f32), values, item, inTile);
  });
  gpu::BarrierOp::create(b, loc);

  // Thread (lane, column): its rows step by one multiset at a time from the
  // first, unranked once (past D: clamped, and masked everywhere).
  Value lane = E.div(thread, t.index(s.e));
  Value column = E.rem(thread, t.index(s.e));
  int64_t rowsPerLane = (dim + lanes - 1) / lanes;
  Value rowBegin = E.mul(lane, t.index(rowsPerLane));
  SmallVector<Value> inits =
      unrankRows(t, s.p, s.d, E.min(rowBegin, t.index(dim - 1)));
  Value sBase = chunkOffset(dim * s.e), zBase = chunkOffset(dim);
  E.forLoop(
      E.idx(0), E.idx(rowsPerLane), E.idx(1), inits,
      [&](Value step, ValueRange row) {
        Value r = E.add(rowBegin, t.splat(step));
        Value inside = E.ult(r, t.index(dim));
        // Over the chunk's tokens before T: a run-time bound also keeps
        // the backend from unrolling C copies of the body into registers.
        auto sums = E.forLoop(
            E.idx(0), valid, E.idx(1),
            {t.constant(f32, 0.0), t.constant(f32, 0.0)},
            [&](Value j, ValueRange acc) {
              SmallVector<Value> keyIndex;
              for (Value index : row)
                keyIndex.push_back(E.add(index, t.splat(E.mul(j, E.idx(s.d)))));
              Value phi = E.mul(t.splat(E.load(weights, {j})),
                                rowProducts(t, f32, keys, 0, keyIndex, inside));
              Value vj = t.load(
                  values, E.add(t.splat(E.mul(j, E.idx(s.e))), column), {});
              return SmallVector<Value>{E.fma(phi, vj, acc[0]),
                                        E.add(acc[1], phi)};
            });
        Value coef = rowScales(t, f32, row);
        t.store(E.mul(coef, sums[0]), dS,
                E.add(E.add(t.splat(sBase), E.mul(r, t.index(s.e))), column),
                inside);
        t.store(E.mul(coef, sums[1]), dZ, E.add(t.splat(zBase), r),
                t.logicalAnd(inside, t.eq(column, t.index(0))));
        return nextRows(t, s.d, row);
      });
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
