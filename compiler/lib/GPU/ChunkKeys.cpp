//===- ChunkKeys.cpp - chunk_keys, the keys rotated once ------------------===//
//
// Rotating schedules with chunk_state_pass: the pass's programs each own a
// tile of state rows and all read every key, so rotating there would repeat
// the angle math (f64 reduction, sin, cos) once per program (33 times per
// head at p = 2, d = 64). chunk_keys rotates each key of [B, T, H, d] once,
// by the absolute counts of chunk_counts, into an f32 workspace array that
// chunk_state_pass reads instead of k. f32 keeps the rotated keys as exact
// as the pass's f32 staging did.
//
// Program (x, h, b) takes tokens [16 x, 16 x + 16) of head h, sequence b:
// 256 threads over its 16 d elements, runs of L adjacent dims per thread.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/ChunkStatePass.h"

using namespace mlir;

namespace sympow::chunked {

LogicalResult buildKeys(OpBuilder &b, gpu::GPUModuleOp module,
                        const AttentionKernelSpec &s) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  Type f32 = b.getF32Type();
  constexpr int64_t P = ChunkKeysSplit::threads,
                    kTokens = ChunkKeysSplit::tokensPerProgram;
  int64_t L = ChunkKeysSplit::runLength(s.d);
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, runtime::KernelId::ChunkKeys, P,
      {tile::KernelAttr::perTokens(kTokens), s.h, tile::KernelAttr::kBatch}, {},
      args);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, P};
  using runtime::KernelArg;
  Value k = args.get(fn, KernelArg::K),
        counts = args.get(fn, KernelArg::Counts),
        rotated = args.get(fn, KernelArg::RotatedK);
  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value x = ids.x, h = ids.y, batch = ids.z;
  Value T = args.seqLen(b, fn);
  Value t0 = E.mul(x, E.idx(kTokens));
  Value valid = E.min(E.idx(kTokens), E.sub(T, t0));
  auto tokenBase = [&](int64_t width) {
    return gpu_detail::tokenOffset(E, batch, T, t0, s.h, h, width);
  };
  Value thread = t.range();
  for (int64_t from = 0; from < kTokens * s.d; from += P * L) {
    Value run = E.add(thread, t.index(from / L));
    Value item = E.add(t.range(L), t.index(from, L));
    Value j = E.div(item, t.index(s.d, L)), dd = E.rem(item, t.index(s.d, L));
    Value live = t.logicalAnd(E.ult(item, t.index(kTokens * s.d, L)),
                              E.ult(j, t.splat(valid, L)));
    Value at = E.add(
        E.add(t.splat(tokenBase(s.d), L), E.mul(j, t.index(s.h * s.d, L))), dd);
    Value kx = t.convert(t.load(k, at, live, L > 1), f32);
    Value partner = gpu_detail::partnerDim(t, s, dd);
    Value kp = t.convert(t.load(k, E.add(E.sub(at, dd), partner), live), f32);
    Value runToken = E.div(E.mul(run, t.index(L)), t.index(s.d));
    Value count = t.load(
        counts, E.add(t.splat(tokenBase(1)), E.mul(runToken, t.index(s.h))),
        t.logicalAnd(E.ult(run, t.index(kTokens * s.d / L)),
                     E.ult(runToken, t.splat(valid))));
    t.store(gpu_detail::rotate(t, s, dd, kx, kp, t.expand(count, L)), rotated,
            at, live, L > 1);
  }
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace sympow::chunked
