//===- ChunkedKernels.cpp - The chunked formulation's gpu.funcs -----------===//
//
// The pieces every chunked kernel shares and the entry points; every kernel
// is a tile kernel (docs/TileIR.md). 16-bit inputs take chunk_state_pass and
// chunk_output (after chunk_counts and chunk_keys where they rotate). f32
// inputs take chunk_states, chunk_scan and the f32 chunk_output, which
// compute in f32 FMA (full f32 accuracy; the 16-bit kernels' split-bf16
// products carry about 16 bits).
//
// Absolute angle counts rotate the keys that enter a state (the conformal
// form of SPEC) and the queries that read it; inside a chunk only
// differences of counts and gates matter. Log gates are summed from the
// chunk's start, so every exp() of a gate difference is at most 1.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/GPU/ChunkedKernels.h"

#include "ChunkedCommon.h"
#include "SymmetricPowerRows.h"

#include "sympow/Compiler/Tile/KernelLaunch.h"
#include "sympow/Dialect/SymmetricPower.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {
namespace chunked {

gpu::GPUFuncOp createF32ChunkKernel(OpBuilder &b, gpu::GPUModuleOp module,
                                    const AttentionKernelSpec &s,
                                    runtime::KernelId kernel, int64_t C,
                                    int64_t heads, ArrayRef<int64_t> arrays,
                                    gpu_detail::KernelArguments &args,
                                    int64_t chunk) {
  SmallVector<Type> workgroup;
  for (int64_t size : arrays)
    workgroup.push_back(gpu_detail::workgroupMemRef({size}, b.getF32Type()));
  gpu::GPUFuncOp fn = gpu_detail::createTileKernel(
      b, module, s, kernel, chunkedThreadsPerBlock(s),
      {tile::KernelAttr::perTokens(C), heads, tile::KernelAttr::kBatch},
      workgroup, args, chunk);
  tile::setMinBlocksPerSM(fn, kernel == runtime::KernelId::ChunkOutput
                                  ? kF32ChunkOutputBlocksPerSM
                                  : kF32ChunkBlocksPerSM);
  return fn;
}

void stageGatePrefix(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                     Value logG, Value logGamma, Value batch, Value T, Value h,
                     Value t0, int64_t C, Value prefix) {
  Emitter &E = t.E;
  Type f32 = t.b.getF32Type();
  // A serial sum of uniform scalars (the order the reference sums in);
  // thread 0 stores each entry. The loops have run-time bounds: a constant
  // one lets LLVM unroll all C iterations and hoist their loads.
  Value first = t.eq(t.range(), t.index(0));
  Value gamma = logGamma ? E.load(logGamma, {h}) : E.f32(0.0);
  Value valid = E.min(E.idx(C), E.sub(T, t0));
  auto storeAt = [&](Value sum, Value j) {
    t.store(t.splat(sum), prefix, t.splat(j), first);
  };
  Value last = E.forLoop(
      E.idx(0), valid, E.idx(1), {E.f32(0.0)}, [&](Value j, ValueRange acc) {
        Value g = gamma;
        if (logG)
          g = E.add(g,
                    E.load(logG, {gpu_detail::tokenOffset(
                                     E, batch, T, E.add(t0, j), s.h, h, 1)}));
        // Saturated: exact, and the sum stays finite (kLogGateFloor).
        Value sum =
            E.add(acc[0], E.max(g, E.fconst(f32, gpu_detail::kLogGateFloor)));
        storeAt(sum, j);
        return SmallVector<Value>{sum};
      })[0];
  E.forLoop(valid, E.idx(C), E.idx(1), {}, [&](Value j, ValueRange) {
    storeAt(last, j);
    return SmallVector<Value>{};
  });
}

void stageRotatedRows(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                      Value src, int64_t heads, Value head, Value batch,
                      Value T, Value t0, int64_t C, Value counts,
                      Value countsHead, double factor, Value rows) {
  Emitter &E = t.E;
  Type f32 = t.b.getF32Type();
  t.forEachItem(C * s.d, [&](Value item, Value inTile) {
    Value j = E.div(item, t.index(s.d)), dim = E.rem(item, t.index(s.d));
    Value token = E.add(t.splat(t0), j);
    Value live = t.logicalAnd(inTile, E.ult(token, t.splat(T)));
    Value row = gpu_detail::tokenOffsets(t, batch, T, t0, j, heads, head, s.d);
    auto read = [&](Value at) {
      Value x = t.convert(t.load(src, E.add(row, at), live), f32);
      return factor == 1.0 ? x : E.mul(x, t.constant(f32, factor));
    };
    Value x = read(dim);
    if (s.rotates()) {
      Value countAt =
          gpu_detail::tokenOffsets(t, batch, T, t0, j, s.h, countsHead, 1);
      x = gpu_detail::rotate(t, s, dim, x,
                             read(gpu_detail::partnerDim(t, s, dim)),
                             t.load(counts, countAt, live));
    }
    t.store(x, rows, item, inTile);
  });
}

Value tokenGates(gpu_detail::Tiles &t, const AttentionKernelSpec &s, Value logG,
                 Value gamma, Value batch, Value T, Value h, Value first,
                 Value count, int64_t perThread) {
  Emitter &E = t.E;
  Type f32 = t.b.getF32Type();
  Value j = t.range(perThread);
  // (count may be i32, as chunk_state_pass's step math is.)
  Value jCounted = j;
  if (count.getType() != getElementTypeOrSelf(j.getType()))
    jCounted =
        arith::IndexCastOp::create(t.b, t.loc, t.like(j, count.getType()), j);
  Value live = E.ult(jCounted, t.splat(count, perThread));
  Value lg =
      gamma ? t.splat(gamma, perThread) : t.constant(f32, 0.0, perThread);
  if (logG) {
    Value at = gpu_detail::tokenOffsets(t, batch, T, first, j, s.h, h, 1);
    lg = E.add(lg, t.load(logG, at, live));
  }
  lg = E.max(lg, t.constant(f32, gpu_detail::kLogGateFloor, perThread));
  return E.select(live, lg, t.constant(f32, 0.0, perThread));
}

std::optional<ChunkOutputTile> outputTileOf(const AttentionKernelSpec &spec,
                                            int64_t chunk) {
  bool statePass = chunkStatePassOf(spec, chunk).has_value();
  return chunkOutputTile(chunk, spec.p, spec.d, spec.e,
                         spec.dtype == ElementKind::F16, spec.rotates(),
                         statePass);
}

void emitFinalCount(gpu_detail::Tiles &t, const AttentionKernelSpec &s,
                    Value counts, Value c, Value batch, Value T, Value h,
                    Value once) {
  Emitter &E = t.E;
  int64_t R = gpu_detail::Tiles::perThread(once);
  Value valid = t.logicalAnd(once, t.splat(E.ult(E.idx(0), T), R));
  Value at =
      gpu_detail::tokenOffset(E, batch, T, E.sub(T, E.idx(1)), s.h, h, 1);
  Value bh = E.add(E.mul(batch, E.idx(s.h)), h);
  t.store(t.load(counts, t.splat(at, R), valid), c, t.splat(bh, R), valid);
}

} // namespace chunked

using namespace chunked;

int64_t chunkedSharedBytes(const AttentionKernelSpec &spec, int64_t chunk) {
  // chunk_output keeps the chunk's queries and keys, chunk_states its keys
  // and values; both their gate prefix and the rotary rates.
  return chunk * 4 * std::max(2 * spec.d, spec.d + spec.e) + chunk * 4 +
         spec.effectiveRotaryDims() / 2 * 8;
}

int64_t largestChunk(const AttentionKernelSpec &spec) {
  return (kStaticSharedBytes - spec.effectiveRotaryDims() / 2 * 8) /
         (4 * std::max(2 * spec.d, spec.d + spec.e) + 4);
}

int64_t shortChunk(const AttentionKernelSpec &spec) {
  // 16-bit inputs: the longest power of two up to 64 that the tile
  // chunk_output takes (64 wherever its arrays fit).
  if (chunkStatePassOf(spec, 64)) {
    int64_t chunk = 64;
    while (chunk > 1 && !outputTileOf(spec, chunk))
      chunk /= 2;
    return chunk;
  }
  return std::min<int64_t>(64, std::max<int64_t>(1, largestChunk(spec)));
}

std::vector<int64_t> chunkCandidates(const AttentionKernelSpec &spec) {
  std::vector<int64_t> chunks = {shortChunk(spec)};
  for (int64_t chunk = 128; chunk <= 2048; chunk *= 2)
    if (outputTileOf(spec, chunk))
      chunks.push_back(chunk);
  return chunks;
}

std::optional<ChunkStatePass> chunkStatePassOf(const AttentionKernelSpec &spec,
                                               int64_t chunk) {
  return chunkStatePass(spec.p, spec.d, spec.e, chunk,
                        spec.dtype == ElementKind::F32 ? 4 : 2,
                        spec.dtype == ElementKind::F16, spec.rotates());
}

int64_t chunkedThreadsPerBlock(const AttentionKernelSpec &spec) {
  return gpu_detail::stateRowLanes(spec) * spec.e;
}

llvm::Error verifyChunkedKernelSpec(const AttentionKernelSpec &spec,
                                    int64_t chunk) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (llvm::Error error = verifyKernelVariant(spec))
    return error;
  if (spec.relativeSchedule())
    return fail(llvm::formatv("schedule '{0}' has no chunked form: only the "
                              "attention kernel computes it",
                              stringifyScheduleKind(spec.schedule)));
  std::optional<int64_t> dim = symmetricPowerDim(spec.d, spec.p);
  // At most 2^32 f32 values (16 GiB) per state of one head.
  if (!dim || *dim > (int64_t(1) << 32) / spec.e)
    return fail(llvm::formatv("phi^{0} of d = {1} is too large a state for "
                              "the chunked kernels",
                              spec.p, spec.d));
  // 16-bit inputs: chunk_state_pass and the tile chunk_output, which keep
  // no whole chunk in workgroup memory. f32: chunk_states, chunk_scan and the
  // f32 chunk_output.
  if (chunkStatePassOf(spec, std::clamp<int64_t>(chunk, 1, kLongestChunk))) {
    if (chunk < 1 || chunk > kLongestChunk || (chunk > 64 && chunk % 16 != 0))
      return fail(llvm::formatv(
          "chunk size {0} is not supported: 16-bit inputs take chunks of 1 "
          "to 64 tokens or multiples of 16 up to {1}",
          chunk, kLongestChunk));
    if (!outputTileOf(spec, chunk))
      return fail(llvm::formatv(
          "chunk_output has no split for chunks of {0} tokens at d = {1}, e "
          "= {2} within its workgroup memory",
          chunk, spec.d, spec.e));
    return llvm::Error::success();
  }
  if (chunk < 1 || chunk > 256)
    return fail(llvm::formatv(
        "chunk size {0} is not supported: f32 inputs take chunks of 1 to 256 "
        "tokens",
        chunk));
  int64_t shared = chunkedSharedBytes(spec, chunk);
  if (shared > kStaticSharedBytes)
    return fail(llvm::formatv(
        "chunks of {0} tokens need {1} bytes of workgroup memory at d = {2}, "
        "e = {3}, more than 48 KiB; use chunks of at most {4}",
        chunk, shared, spec.d, spec.e, largestChunk(spec)));
  if (chunkedThreadsPerBlock(spec) > 1024)
    return fail(llvm::formatv("e = {0} needs more than 1024 threads", spec.e));
  return llvm::Error::success();
}

std::vector<std::string> buildChunkedKernels(OpBuilder &builder,
                                             gpu::GPUModuleOp module,
                                             const AttentionKernelSpec &spec,
                                             int64_t chunk) {
  OpBuilder::InsertionGuard guard(builder);
  int64_t dim = *symmetricPowerDim(spec.d, spec.p);
  std::vector<std::string> names;
  auto emit = [&](runtime::KernelId kernel, auto build) {
    builder.setInsertionPointToEnd(module.getBody());
    build();
    names.push_back(runtime::kernelName(kernel));
  };
  if (spec.rotates())
    emit(runtime::KernelId::ChunkCounts, [&] {
      if (failed(buildCounts(builder, module, spec)))
        llvm::report_fatal_error("chunk_counts: the tile lowering failed");
    });
  // The tile kernels are lowered here; they cannot fail on a verified spec.
  // 16-bit inputs take them all; f32 chunk_states, chunk_scan and the f32
  // chunk_output.
  if (std::optional<ChunkStatePass> pass = chunkStatePassOf(spec, chunk)) {
    if (spec.rotates())
      emit(runtime::KernelId::ChunkKeys, [&] {
        if (failed(buildKeys(builder, module, spec)))
          llvm::report_fatal_error("chunk_keys: the tile lowering failed");
      });
    emit(runtime::KernelId::ChunkStatePass, [&] {
      if (failed(buildStatePass(builder, module, spec, chunk, dim, *pass)))
        llvm::report_fatal_error("chunk_state_pass: the tile lowering failed");
    });
    emit(runtime::KernelId::ChunkOutput, [&] {
      if (failed(buildOutputTile(builder, module, spec, chunk, dim,
                                 *outputTileOf(spec, chunk))))
        llvm::report_fatal_error("chunk_output: the tile lowering failed");
    });
    return names;
  }
  emit(runtime::KernelId::ChunkStates, [&] {
    if (failed(buildStates(builder, module, spec, chunk, dim)))
      llvm::report_fatal_error("chunk_states: the tile lowering failed");
  });
  emit(runtime::KernelId::ChunkScan, [&] {
    if (failed(buildScan(builder, module, spec, chunk, dim)))
      llvm::report_fatal_error("chunk_scan: the tile lowering failed");
  });
  emit(runtime::KernelId::ChunkOutput, [&] {
    if (failed(buildOutputF32(builder, module, spec, chunk, dim)))
      llvm::report_fatal_error("chunk_output: the tile lowering failed");
  });
  return names;
}

} // namespace sympow
