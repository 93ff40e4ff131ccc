//===- RotatedOperands.cpp - q and k rotated once, for every reader -------===//
//
// Rotating schedules: the kernels that read a key (or a query) many times,
// one program per tile of state rows or of query rows, would repeat its
// angle math (f64 reduction, sin, cos) in each of them: 33 times per head
// in chunk_state_pass at p = 2, d = 64, T / 64 times per key in attention.
// These kernels rotate each token once by the absolute counts of
// chunk_counts:
//  - chunk_keys (the chunked formulation): k into an f32 workspace array
//    that chunk_state_pass and the tile chunk_output read instead of k; f32
//    keeps the rotated keys as exact as their own f32 staging did.
//  - rotate_qk (the attention formulation's tile kernel): q and k into hi +
//    lo halves of the input type, [B, T, heads, AttentionTile::
//    halvesColumns(d)] (the hi half, then the lo half, each d rounded up
//    to 16 with zeros), which the attention kernel copies into its MMAs'
//    operands as they are and multiplies as three products.
//
// Program (x, y, b) takes tokens [16 x, 16 x + 16) of one head (rotate_qk:
// query heads y < Hq, then key heads y - Hq): 256 threads over its 16
// rows, runs of L adjacent dims per thread (ChunkKeysSplit).
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "TileKernels.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Support/AttentionTile.h"
#include "sympow/Support/ChunkStatePass.h"

using namespace mlir;

namespace sympow::chunked {

namespace {

/// Where rotated elements go: an f32 row of d per token, or hi + lo halves
/// of `half` (the input type) in rows of halvesColumns(d).
struct RotatedRows {
  Value dest;
  Type half; // null: f32 rows of d
};

/// Rotates tokens [t0, t0 + valid) of head `head` of src [B, T, heads, d]
/// by the counts of key head `countsHead` into `out`.
void rotateTokens(gpu_detail::Tiles &t, const AttentionKernelSpec &s, Value src,
                  int64_t heads, Value head, Value countsHead, Value counts,
                  Value batch, Value T, Value t0, Value valid,
                  const RotatedRows &out) {
  constexpr int64_t P = ChunkKeysSplit::threads,
                    kTokens = ChunkKeysSplit::tokensPerProgram;
  Emitter &E = t.E;
  Type f32 = t.b.getF32Type();
  int64_t L = ChunkKeysSplit::runLength(s.d);
  // Columns walked per token: the halves' zeros past d come from masked
  // reads (d is then a multiple of L).
  int64_t DK = out.half ? AttentionTile::keyColumns(s.d) : s.d;
  int64_t outWidth = out.half ? AttentionTile::halvesColumns(s.d) : s.d;
  Value srcBase = gpu_detail::tokenOffset(E, batch, T, t0, heads, head, s.d);
  Value outBase =
      gpu_detail::tokenOffset(E, batch, T, t0, heads, head, outWidth);
  Value countBase =
      gpu_detail::tokenOffset(E, batch, T, t0, s.h, countsHead, 1);
  Value thread = t.range();
  for (int64_t from = 0; from < kTokens * DK; from += P * L) {
    Value run = E.add(thread, t.index(from / L));
    Value item = E.add(t.range(L), t.index(from, L));
    Value j = E.div(item, t.index(DK, L)), dd = E.rem(item, t.index(DK, L));
    Value inTile = t.logicalAnd(E.ult(item, t.index(kTokens * DK, L)),
                                E.ult(j, t.splat(valid, L)));
    Value live = t.logicalAnd(inTile, E.ult(dd, t.index(s.d, L)));
    Value at = E.add(
        E.add(t.splat(srcBase, L), E.mul(j, t.index(heads * s.d, L))), dd);
    Value x = t.convert(t.load(src, at, live, L > 1), f32);
    Value partner = gpu_detail::partnerDim(t, s, dd);
    Value xp = t.convert(t.load(src, E.add(E.sub(at, dd), partner), live), f32);
    Value runToken = E.div(E.mul(run, t.index(L)), t.index(DK));
    Value count =
        t.load(counts, E.add(t.splat(countBase), E.mul(runToken, t.index(s.h))),
               t.logicalAnd(E.ult(run, t.index(kTokens * DK / L)),
                            E.ult(runToken, t.splat(valid))));
    Value rotated = gpu_detail::rotate(t, s, dd, x, xp, t.expand(count, L));
    Value to = E.add(
        E.add(t.splat(outBase, L), E.mul(j, t.index(heads * outWidth, L))), dd);
    if (!out.half) {
      t.store(rotated, out.dest, to, live, L > 1);
      continue;
    }
    // hi, then lo = x - hi, each rounded to the input type.
    Value hi = t.convert(rotated, out.half);
    Value lo = t.convert(E.sub(rotated, t.convert(hi, f32)), out.half);
    t.store(hi, out.dest, to, inTile, L > 1);
    t.store(lo, out.dest, E.add(to, t.index(DK, L)), inTile, L > 1);
  }
}

/// The tokens of one program of a rotation kernel: [t0, t0 + valid) of head
/// `head` (the grid's y), sequence `batch`.
struct RotationProgram {
  gpu_detail::Tiles &t;
  gpu_detail::KernelArguments &args;
  gpu::GPUFuncOp fn;
  Value head, batch, T, t0, valid;
  Value arg(runtime::KernelArg kind) const { return args.get(fn, kind); }
};

/// A rotation kernel `kernel` of `formulation`: programs of 16 tokens over
/// `heads` heads (the grid's y), each running `body`.
LogicalResult
buildRotation(OpBuilder &b, gpu::GPUModuleOp module,
              const AttentionKernelSpec &s, runtime::KernelId kernel,
              int64_t heads, runtime::Formulation formulation,
              llvm::function_ref<void(const RotationProgram &)> body) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = module.getLoc();
  constexpr int64_t kTokens = ChunkKeysSplit::tokensPerProgram;
  gpu_detail::KernelArguments args;
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, kernel, ChunkKeysSplit::threads,
      {tile::KernelAttr::perTokens(kTokens), heads, tile::KernelAttr::kBatch},
      {}, args, 0, formulation);
  Emitter E(b, loc);
  gpu_detail::Tiles t{b, loc, E, ChunkKeysSplit::threads};
  gpu_detail::ProgramIds ids = gpu_detail::programIds(b, loc);
  Value T = args.seqLen(b, fn);
  Value t0 = E.mul(ids.x, E.idx(kTokens));
  Value valid = E.min(E.idx(kTokens), E.sub(T, t0));
  body({t, args, fn, ids.y, ids.z, T, t0, valid});
  gpu::ReturnOp::create(b, loc);
  return tile::lowerTileKernel(fn);
}

} // namespace

LogicalResult buildKeys(OpBuilder &b, gpu::GPUModuleOp module,
                        const AttentionKernelSpec &s) {
  using runtime::KernelArg;
  return buildRotation(
      b, module, s, runtime::KernelId::ChunkKeys, s.h,
      runtime::Formulation::Chunked, [&](const RotationProgram &r) {
        rotateTokens(r.t, s, r.arg(KernelArg::K), s.h, r.head, r.head,
                     r.arg(KernelArg::Counts), r.batch, r.T, r.t0, r.valid,
                     {r.arg(KernelArg::RotatedK), Type()});
      });
}

LogicalResult buildRotateQK(OpBuilder &b, gpu::GPUModuleOp module,
                            const AttentionKernelSpec &s) {
  using runtime::KernelArg;
  Type half = gpu_detail::elementType(b.getContext(), s.dtype);
  return buildRotation(
      b, module, s, runtime::KernelId::RotateQK, s.hq + s.h,
      runtime::Formulation::Attention, [&](const RotationProgram &r) {
        Emitter &E = r.t.E;
        Value counts = r.arg(KernelArg::Counts), y = r.head;
        // A query head's program or a key head's (uniform).
        E.ifThen(E.ult(y, E.idx(s.hq)), [&] {
          rotateTokens(r.t, s, r.arg(KernelArg::Q), s.hq, y,
                       E.div(y, E.idx(s.hq / s.h)), counts, r.batch, r.T, r.t0,
                       r.valid, {r.arg(KernelArg::RotatedQHalves), half});
        });
        E.ifThen(E.cmpi(arith::CmpIPredicate::uge, y, E.idx(s.hq)), [&] {
          Value head = E.sub(y, E.idx(s.hq));
          rotateTokens(r.t, s, r.arg(KernelArg::K), s.h, head, head, counts,
                       r.batch, r.T, r.t0, r.valid,
                       {r.arg(KernelArg::RotatedKHalves), half});
        });
      });
}

} // namespace sympow::chunked
