//===- ChunkScan.cpp - chunk_scan, written as a tile kernel ---------------===//
//
// The discounted scan over chunk states, parallel over the state: program
// (x, h, b) takes BLOCK consecutive elements of the flattened [S | Z] state
// of head h of sequence b (D * e values of S, then D of Z) and walks the N
// chunks in order:
//
//   running = [S | Z];  for n: dX_n <- running,
//                              running = exp(decay_n) running + dX_n;
//   [S | Z] <- running;  c <- counts[T - 1] (rotating schedules)
//
// BLOCK = 256 threads x R elements (ChunkScanSplit.h; R = 1 today, the
// kernel takes R = 4 as 16-byte accesses). Grid (ceil(D (e + 1) / BLOCK),
// H, B): at B = 1 with 8 heads and p = 2, d = e = 64 that is 529 x 8
// programs, where the old kernel ran one block per head. Written in the tile IR
// (docs/TileIR.md) and lowered by
// --sympow-convert-tile-to-gpu; the arguments are the kernel ABI's
// (runtime::layerKernelArguments), so only the launch changed.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/ChunkScanSplit.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace sympow::chunked {

LogicalResult buildScan(OpBuilder &b, gpu::GPUModuleOp module,
                        const AttentionKernelSpec &s, int64_t C, int64_t dim) {
  Location loc = module.getLoc();
  ChunkScanSplit split = chunkScanSplit(dim, s.e);
  int64_t R = split.perThread, block = split.elementsPerProgram();
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::ChunkScan, split.threads,
      {split.programs, s.h, tile::KernelAttr::kBatch}, {}, args);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, split.threads};
  using runtime::KernelArg;
  Value S = args.get(fn, KernelArg::S), Z = args.get(fn, KernelArg::Z),
        c = args.get(fn, KernelArg::C);
  Value counts = args.get(fn, KernelArg::Counts);
  Value dS = args.get(fn, KernelArg::ChunkS),
        dZ = args.get(fn, KernelArg::ChunkZ),
        decay = args.get(fn, KernelArg::Decay);

  // Tiles of the program, R adjacent elements per thread; runs of R lie in
  // S or in Z at offsets that are multiples of R (ChunkScanSplit.h), so
  // with R = 4 each is one 16-byte access.
  bool contiguous = R > 1;
  auto splat = [&](Value x) { return t.splat(x, R); };
  auto load = [&](Value base, Value at, Value mask) {
    return t.load(base, at, mask, contiguous);
  };
  auto store = [&](Value x, Value base, Value at, Value mask) {
    t.store(x, base, at, mask, contiguous);
  };

  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value x = ids.x, h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value N = E.div(E.add(T, E.idx(C - 1)), E.idx(C));
  Value bh = E.add(E.mul(batch, E.idx(s.h)), h);

  // This program's elements of [S | Z]: i < D e in S, the rest in Z.
  int64_t widthS = dim * s.e, width = widthS + dim;
  Value i = E.add(splat(E.mul(x, E.idx(block))), t.range(R));
  Value inS = E.ult(i, splat(E.idx(widthS)));
  Value inZ = arith::AndIOp::create(
      b, loc, E.ult(i, splat(E.idx(width))),
      E.cmpi(arith::CmpIPredicate::uge, i, splat(E.idx(widthS))));
  Value j = E.sub(i, splat(E.idx(widthS)));
  // Element offsets in a [.., S | Z] pair whose slot (a (b, h) or a
  // (b, n, h)) is `slot`.
  auto offsets = [&](Value slot) {
    return std::pair{E.add(splat(E.mul(slot, E.idx(widthS))), i),
                     E.add(splat(E.mul(slot, E.idx(dim))), j)};
  };
  auto read = [&](Value sBuf, Value zBuf, Value slot) {
    auto [sAt, zAt] = offsets(slot);
    return E.select(inS, load(sBuf, sAt, inS), load(zBuf, zAt, inZ));
  };
  auto write = [&](Value value, Value sBuf, Value zBuf, Value slot) {
    auto [sAt, zAt] = offsets(slot);
    store(value, sBuf, sAt, inS);
    store(value, zBuf, zAt, inZ);
  };

  Value last = E.forLoop(
      E.idx(0), N, E.idx(1), {read(S, Z, bh)}, [&](Value n, ValueRange acc) {
        // [b, n, h] of the chunk workspace.
        Value slot = E.add(E.mul(E.add(E.mul(batch, N), n), E.idx(s.h)), h);
        Value own = read(dS, dZ, slot);
        write(acc[0], dS, dZ, slot);
        Value keep = splat(E.exp(E.load(decay, {slot})));
        return SmallVector<Value>{E.fma(keep, acc[0], own)};
      })[0];
  write(last, S, Z, bh);

  if (s.rotates()) {
    // One element of the grid writes c.
    emitFinalCount(t, s, counts, c, batch, T, h,
                   E.cmpi(arith::CmpIPredicate::eq, i, splat(E.idx(0))));
  }
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
