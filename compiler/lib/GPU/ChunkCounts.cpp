//===- ChunkCounts.cpp - chunk_counts, the rotation counts as a scan ------===//
//
// Rotating schedules: c_t = c_0 + sum_{s <= t} beta_s (1 per token for the
// uniform schedule) for every token, in f64, for chunk_keys and
// chunk_output, or rotate_qk (c_0 = 0 in the attention formulation, which
// has no state: only differences of counts matter there). Program (h, b) walks
// its sequence in tiles of P R tokens (P = 512 threads, R = 8,
// ChunkCountsSplit), R adjacent ones per thread: the
// thread's own prefix sums, a warp scan of the threads' totals
// (`sympow_tile.scan`), each warp's total through workgroup memory, then every
// thread adds the totals of the warps before its own, the threads before it in
// its warp and the count carried from the tiles before. Two barriers and five
// rounds of shuffles per tile of P R tokens, and a thread's R loads issued
// together; a serial sum took 256 dependent additions in one thread (47 us at
// 4K tokens on the H100).
//
// The additions are in a fixed order (the thread's, the scan's tree, then
// the warps in turn), so the counts are deterministic, but not the serial
// definition's order: they differ from it by f64 rounding (about 1e-16 of
// c), far inside SPEC's 1e-5 rad for the angle.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/ChunkStatePass.h"

using namespace mlir;

namespace sympow::chunked {

LogicalResult buildCounts(OpBuilder &b, gpu::GPUModuleOp module,
                          const AttentionKernelSpec &s,
                          runtime::Formulation formulation) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  Type f64 = b.getF64Type();
  // Threads, warps, tokens per thread and tile (ChunkStatePass.h).
  constexpr int64_t P = ChunkCountsSplit::threads,
                    kWarps = ChunkCountsSplit::warps,
                    R = ChunkCountsSplit::tokensPerThread;
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::ChunkCounts, P,
      {1, s.h, tile::KernelAttr::kBatch},
      {gpu_detail::workgroupMemRef({kWarps}, f64)}, args, 0, formulation);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  using runtime::KernelArg;
  Value beta = args.get(fn, KernelArg::Beta),
        counts = args.get(fn, KernelArg::Counts),
        c = args.get(fn, KernelArg::C);
  Value totals = fn.getWorkgroupAttributions()[0];
  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value thread = t.range();
  Value warp = E.div(thread, t.index(32));
  Value lastLane = t.eq(E.rem(thread, t.index(32)), t.index(31));
  Value zero = t.constant(f64, 0.0);

  // Without a state (attention) the counts start at 0.
  Value c0 = c ? E.load(c, {E.add(E.mul(batch, E.idx(s.h)), h)}) : E.f64(0.0);
  Value sequence =
      t.splat(gpu_detail::tokenOffset(E, batch, T, E.idx(0), s.h, h, 1));
  E.forLoop(E.idx(0), T, E.idx(P * R), {c0}, [&](Value t0, ValueRange carried) {
    // This thread's R tokens and their sums from its first on.
    Value first = E.add(t.splat(t0), E.mul(thread, t.index(R)));
    SmallVector<Value> at, valid, own;
    Value sum = zero;
    for (int64_t j = 0; j < R; ++j) {
      Value token = E.add(first, t.index(j));
      valid.push_back(E.ult(token, t.splat(T)));
      at.push_back(E.add(sequence, E.mul(token, t.index(s.h))));
      Value step = beta ? t.convert(t.load(beta, at[j], valid[j]), f64)
                        : E.select(valid[j], t.constant(f64, 1.0), zero);
      sum = E.add(sum, step);
      own.push_back(sum);
    }
    Value inWarp = tile::ScanOp::create(b, loc, sum, 32, false);
    t.store(inWarp, totals, warp, lastLane);
    gpu::BarrierOp::create(b, loc);
    // The warps before this thread's, and the whole tile, each summed
    // from warp 0 on (the same order for every thread).
    Value before = zero, tileSum = E.f64(0.0);
    for (int64_t w = 0; w < kWarps; ++w) {
      Value total = E.load(totals, {E.idx(w)});
      before = E.add(before,
                     E.select(E.ult(t.index(w), warp), t.splat(total), zero));
      tileSum = E.add(tileSum, total);
    }
    // The count before this thread's first token.
    Value offset =
        E.add(t.splat(carried[0]), E.add(before, E.sub(inWarp, sum)));
    for (int64_t j = 0; j < R; ++j)
      t.store(E.add(offset, own[j]), counts, at[j], valid[j]);
    gpu::BarrierOp::create(b, loc); // the next tile overwrites totals
    return SmallVector<Value>{E.add(carried[0], tileSum)};
  });
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
