//===- ChunkedKernels.cpp - The chunked formulation's gpu.funcs -----------===//
//
// The pieces every chunked kernel shares, the scalar kernels and the entry
// points. 16-bit inputs take tile kernels only (chunk_state_pass and
// chunk_output, after chunk_counts and chunk_keys where they rotate). f32
// inputs take the scalar chunk_states and chunk_output, which compute in f32
// FMA (full f32 accuracy; the tile kernels' split-bf16 products carry about
// 16 bits), with the tile chunk_scan between them (ChunkScan.cpp,
// docs/TileIR.md). Threads of the scalar kernels form L row lanes of e
// columns, as in the recurrent kernel: column c of a thread is column c of
// the state or of y.
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

#include "sympow/Dialect/SymmetricPower.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow {
namespace chunked {

/// The function of `kernel` with the arguments the runtime packs for it
/// (runtime::layerKernelArguments), its workgroup arrays, launch metadata.
gpu::GPUFuncOp createKernel(OpBuilder &b, gpu::GPUModuleOp module,
                            runtime::KernelId kernel,
                            const gpu_detail::KernelArguments &args,
                            ArrayRef<Type> workgroup, int64_t threads,
                            int64_t tokensPerBlock, int64_t gridY,
                            int32_t minBlocksPerSM) {
  auto fn =
      gpu::GPUFuncOp::create(b, module.getLoc(), runtime::kernelName(kernel),
                             b.getFunctionType(args.types, {}), workgroup);
  gpu_detail::setLaunch(b, fn, threads, tokensPerBlock, gridY, minBlocksPerSM);
  b.setInsertionPointToStart(&fn.getBody().front());
  return fn;
}

/// Fills T, b and the thread ids of `K`.
void bindIds(Chunked &K, gpu::GPUFuncOp fn,
             const gpu_detail::KernelArguments &args) {
  Emitter &E = K.E;
  K.T = args.seqLen(E.b, fn);
  K.b = gpu::BlockIdOp::create(E.b, E.loc, gpu::Dimension::z);
  K.tid = gpu::ThreadIdOp::create(E.b, E.loc, gpu::Dimension::x);
  K.lane = E.div(K.tid, E.idx(K.spec.e));
  K.col = E.rem(K.tid, E.idx(K.spec.e));
}

/// Inclusive prefix of log_g + log_gamma over the chunk's tokens into
/// `prefix` [C] (thread 0, serially; entries past T repeat the last sum);
/// no barrier. The loops have run-time bounds: a constant one lets LLVM
/// unroll all C iterations and hoist their loads (255 registers).
void emitGatePrefix(Chunked &K, Value logG, Value logGamma, Value h, Value t0,
                    Value prefix) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  E.ifThen(K.isThread0(), [&] {
    Value gamma = logGamma ? E.load(logGamma, {h}) : E.f32(0.0);
    Value valid = E.min(E.idx(K.C), E.sub(K.T, t0));
    Value last = E.forLoop(
        E.idx(0), valid, E.idx(1), {E.f32(0.0)}, [&](Value j, ValueRange acc) {
          Value g = gamma;
          if (s.hasLogG()) {
            Value at = K.tokenOffset(E.add(t0, j), s.h, h, 1);
            g = E.add(g, E.load(logG, {at}));
          }
          // Saturated: exact, and the sum stays finite (kLogGateFloor).
          g = E.max(g, E.f32(gpu_detail::kLogGateFloor));
          Value sum = E.add(acc[0], g);
          E.store(sum, prefix, {j});
          return SmallVector<Value>{sum};
        })[0];
    E.forLoop(valid, E.idx(K.C), E.idx(1), {}, [&](Value j, ValueRange) {
      E.store(last, prefix, {j});
      return SmallVector<Value>{};
    });
  });
}

/// After emitGatePrefix into `weights`: weights[j] = exp(G_last - G_j) for
/// the chunk's tokens before T, 0 up to `size`; decay[at] = G_last.
void emitChunkWeights(Chunked &K, Value weights, int64_t size, Value t0,
                      Value decay, Value at) {
  Emitter &E = K.E;
  E.ifThen(K.isThread0(), [&] {
    Value last = E.load(weights, {E.idx(K.C - 1)});
    Value valid = E.min(E.idx(K.C), E.sub(K.T, t0));
    E.forLoop(E.idx(0), valid, E.idx(1), {}, [&](Value j, ValueRange) {
      E.store(E.exp(E.sub(last, E.load(weights, {j}))), weights, {j});
      return SmallVector<Value>{};
    });
    E.forLoop(valid, E.idx(size), E.idx(1), {}, [&](Value j, ValueRange) {
      E.store(E.f32(0.0), weights, {j});
      return SmallVector<Value>{};
    });
    E.store(last, decay, {at});
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
    Value at =
        E.add(t.splat(gpu_detail::tokenOffset(E, batch, T, first, s.h, h, 1),
                      perThread),
              E.mul(j, t.index(s.h, perThread)));
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

/// Rows t0 .. t0 + C - 1 of a [B, T, heads, d] tensor into `tile` [C * d]
/// as f32, times `factor`, rotated by the absolute counts; zero past T.
/// With `store`, each f32 element goes through it instead.
void emitLoadRotatedTile(Chunked &K, Value src, int64_t heads, Value head,
                         Value t0, Value counts, Value countHead, Value theta,
                         double factor, Value tile, StoreElement store) {
  Emitter &E = K.E;
  const AttentionKernelSpec &s = K.spec;
  Type f32 = E.b.getF32Type();
  int64_t pairs = s.d / 2;
  E.forLoop(K.tid, E.idx(K.C * pairs), E.idx(K.threads()), {},
            [&](Value item, ValueRange) {
              Value j = E.div(item, E.idx(pairs));
              Value m = E.rem(item, E.idx(pairs));
              Value t = E.add(t0, j);
              Value inside = E.ult(t, K.T);
              Value tc = E.min(t, E.sub(K.T, E.idx(1)));
              Value base = K.tokenOffset(tc, heads, head, s.d);
              auto [i0, i1] = gpu_detail::pairDims(E, s, m);
              auto read = [&](Value dim) {
                Value x = E.convert(E.load(src, {E.add(base, dim)}), f32);
                x = factor == 1.0 ? x : E.mul(x, E.f32(factor));
                return E.select(inside, x, E.f32(0.0));
              };
              Value x0 = read(i0), x1 = read(i1);
              if (s.rotates()) {
                Value c =
                    E.load(counts, {K.tokenOffset(tc, s.h, countHead, 1)});
                std::tie(x0, x1) =
                    gpu_detail::rotatePair(E, s, theta, m, c, x0, x1);
              }
              if (store) {
                store(j, i0, x0);
                store(j, i1, x1);
                return SmallVector<Value>{};
              }
              Value row = E.mul(j, E.idx(s.d));
              E.store(x0, tile, {E.add(row, i0)});
              E.store(x1, tile, {E.add(row, i1)});
              return SmallVector<Value>{};
            });
}

} // namespace chunked

namespace {

using namespace chunked;
using gpu_detail::stateRowLanes;

//===----------------------------------------------------------------------===//
// chunk_states: dS_n = sum_j w_j phi(k_j) (x) v_j, dZ_n = sum_j w_j phi(k_j),
// w_j = exp(G_last - G_j), decay_n = G_last.
//===----------------------------------------------------------------------===//

void buildStates(OpBuilder &b, gpu::GPUModuleOp module,
                 const AttentionKernelSpec &s, int64_t C, int64_t dim) {
  MLIRContext *ctx = b.getContext();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  auto args =
      gpu_detail::kernelArguments(ctx, s, runtime::KernelId::ChunkStates);
  int64_t r = s.effectiveRotaryDims();
  using gpu_detail::workgroupMemRef;
  gpu::GPUFuncOp fn =
      createKernel(b, module, runtime::KernelId::ChunkStates, args,
                   {workgroupMemRef({C * s.d}, f32),
                    workgroupMemRef({C * s.e}, f32), workgroupMemRef({C}, f32),
                    workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64)},
                   chunkedThreadsPerBlock(s), C, s.h);
  Emitter E(b, module.getLoc());
  Chunked K{s, E, C, dim, s.hq / s.h, elem};
  bindIds(K, fn, args);
  using runtime::KernelArg;
  Value k = args.get(fn, KernelArg::K), v = args.get(fn, KernelArg::V);
  Value logG = args.get(fn, KernelArg::LogG);
  Value logGamma = args.get(fn, KernelArg::LogGamma);
  Value counts = args.get(fn, KernelArg::Counts);
  Value dS = args.get(fn, KernelArg::ChunkS),
        dZ = args.get(fn, KernelArg::ChunkZ),
        decay = args.get(fn, KernelArg::Decay);
  auto wg = fn.getWorkgroupAttributions();
  Value keys = wg[0], values = wg[1], weights = wg[2], theta = wg[3];

  Value n = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::x);
  Value h = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::y);
  Value t0 = E.mul(n, E.idx(C));
  gpu_detail::emitThetaTable(E, s, theta, K.tid, K.threads());
  // Weights: G_j first, then exp(G_last - G_j) (0 past T); decay_n = G_last.
  emitGatePrefix(K, logG, logGamma, h, t0, weights);
  emitChunkWeights(K, weights, C, t0, decay, K.chunkOffset(n, h, 1));
  gpu::BarrierOp::create(b, E.loc); // theta
  emitLoadRotatedTile(K, k, s.h, h, t0, counts, h, theta, 1.0, keys);
  E.forLoop(K.tid, E.idx(C * s.e), E.idx(K.threads()), {},
            [&](Value item, ValueRange) {
              Value j = E.div(item, E.idx(s.e)), i = E.rem(item, E.idx(s.e));
              Value t = E.add(t0, j);
              Value tc = E.min(t, E.sub(K.T, E.idx(1)));
              Value x = E.convert(
                  E.load(v, {E.add(K.tokenOffset(tc, s.h, h, s.e), i)}), f32);
              E.store(E.select(E.ult(t, K.T), x, E.f32(0.0)), values, {item});
              return SmallVector<Value>{};
            });
  gpu::BarrierOp::create(b, E.loc);

  // This lane's rows of the state.
  int64_t lanes = stateRowLanes(s), rowsPerLane = (dim + lanes - 1) / lanes;
  Value rowBegin = E.min(E.mul(K.lane, E.idx(rowsPerLane)), E.idx(dim));
  Value rowEnd = E.min(E.add(rowBegin, E.idx(rowsPerLane)), E.idx(dim));
  SmallVector<Value> first = gpu_detail::unrankMultiset(E, s.p, s.d, rowBegin);
  Value sBase = K.chunkOffset(n, h, dim * s.e);
  Value zBase = K.chunkOffset(n, h, dim);
  Value valid = E.min(E.idx(C), E.sub(K.T, t0));
  E.forLoop(rowBegin, rowEnd, E.idx(1), first, [&](Value row, ValueRange st) {
    Value coef = gpu_detail::multisetScale(E, st);
    // Over the chunk's tokens before T: a run-time bound also keeps the
    // backend from unrolling C copies of the body into registers.
    auto sums = E.forLoop(
        E.idx(0), valid, E.idx(1), {E.f32(0.0), E.f32(0.0)},
        [&](Value j, ValueRange acc) {
          Value phi = E.mul(
              E.load(weights, {j}),
              gpu_detail::multisetProduct(E, keys, E.mul(j, E.idx(s.d)), st));
          Value vj = E.load(values, {E.add(E.mul(j, E.idx(s.e)), K.col)});
          return SmallVector<Value>{E.fma(phi, vj, acc[0]), E.add(acc[1], phi)};
        });
    E.store(E.mul(coef, sums[0]), dS,
            {E.add(E.add(sBase, E.mul(row, E.idx(s.e))), K.col)});
    E.ifThen(E.cmpi(arith::CmpIPredicate::eq, K.col, E.idx(0)),
             [&] { E.store(E.mul(coef, sums[1]), dZ, {E.add(zBase, row)}); });
    return gpu_detail::nextMultiset(E, s.d, st);
  });
  gpu::ReturnOp::create(b, E.loc);
}

//===----------------------------------------------------------------------===//
// chunk_output: y_i from the causal block inside the chunk and the state
// before it, in log space.
//===----------------------------------------------------------------------===//

void buildOutput(OpBuilder &b, gpu::GPUModuleOp module,
                 const AttentionKernelSpec &s, int64_t C, int64_t dim) {
  MLIRContext *ctx = b.getContext();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  auto args =
      gpu_detail::kernelArguments(ctx, s, runtime::KernelId::ChunkOutput, C);
  int64_t r = s.effectiveRotaryDims();
  using gpu_detail::workgroupMemRef;
  gpu::GPUFuncOp fn =
      createKernel(b, module, runtime::KernelId::ChunkOutput, args,
                   {workgroupMemRef({C * s.d}, f32),
                    workgroupMemRef({C * s.d}, f32), workgroupMemRef({C}, f32),
                    workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64)},
                   chunkedThreadsPerBlock(s), C, s.hq);
  Emitter E(b, module.getLoc());
  Chunked K{s, E, C, dim, s.hq / s.h, elem};
  bindIds(K, fn, args);
  using runtime::KernelArg;
  Value q = args.get(fn, KernelArg::Q), k = args.get(fn, KernelArg::K),
        v = args.get(fn, KernelArg::V);
  Value logG = args.get(fn, KernelArg::LogG);
  Value logGamma = args.get(fn, KernelArg::LogGamma);
  Value counts = args.get(fn, KernelArg::Counts);
  Value prefixS = args.get(fn, KernelArg::ChunkS),
        prefixZ = args.get(fn, KernelArg::ChunkZ),
        y = args.get(fn, KernelArg::Y);
  auto wg = fn.getWorkgroupAttributions();
  Value qs = wg[0], ks = wg[1], gp = wg[2], theta = wg[3];

  Value n = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::x);
  Value hq = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::y);
  Value h = E.div(hq, E.idx(K.g));
  Value t0 = E.mul(n, E.idx(C));
  gpu_detail::emitThetaTable(E, s, theta, K.tid, K.threads());
  emitGatePrefix(K, logG, logGamma, h, t0, gp);
  gpu::BarrierOp::create(b, E.loc); // theta
  emitLoadRotatedTile(K, q, s.hq, hq, t0, counts, h, theta, s.effectiveScale(),
                      qs);
  emitLoadRotatedTile(K, k, s.h, h, t0, counts, h, theta, 1.0, ks);
  gpu::BarrierOp::create(b, E.loc);

  Value sBase = K.chunkOffset(n, h, dim * s.e);
  Value zBase = K.chunkOffset(n, h, dim);
  Value negInf = E.f32(-std::numeric_limits<float>::infinity());
  int64_t lanes = stateRowLanes(s);
  E.forLoop(K.lane, E.idx(C), E.idx(lanes), {}, [&](Value i, ValueRange) {
    Value qRow = E.mul(i, E.idx(s.d));
    // The state before the chunk: phi(q_i) . S[:, col] and phi(q_i) . Z.
    SmallVector<Value> init(s.p, E.idx(0));
    init.append({E.f32(0.0), E.f32(0.0)});
    auto walk = E.forLoop(
        E.idx(0), E.idx(dim), E.idx(1), init, [&](Value row, ValueRange st) {
          ValueRange tuple = st.take_front(s.p);
          Value phi = E.mul(gpu_detail::multisetScale(E, tuple),
                            gpu_detail::multisetProduct(E, qs, qRow, tuple));
          Value sv = E.load(
              prefixS, {E.add(E.add(sBase, E.mul(row, E.idx(s.e))), K.col)});
          Value zv = E.load(prefixZ, {E.add(zBase, row)});
          SmallVector<Value> next = gpu_detail::nextMultiset(E, s.d, tuple);
          next.append({E.fma(phi, sv, st[s.p]), E.fma(phi, zv, st[s.p + 1])});
          return next;
        });
    Value ns = walk[s.p], ds = walk[s.p + 1];

    // Inside the chunk: s_ij = G_i - G_j + p log|q_i . k_j|, j <= i.
    Value gi = E.load(gp, {i});
    auto score = [&](Value j) {
      Value dot = E.forLoop(E.idx(0), E.idx(s.d), E.idx(1), {E.f32(0.0)},
                            [&](Value x, ValueRange acc) {
                              Value qx = E.load(qs, {E.add(qRow, x)});
                              Value kx =
                                  E.load(ks, {E.add(E.mul(j, E.idx(s.d)), x)});
                              return SmallVector<Value>{E.fma(qx, kx, acc[0])};
                            })[0];
      Value logPow = E.mul(E.f32(static_cast<double>(s.p)), E.log(E.abs(dot)));
      Value valid = E.ult(E.add(t0, j), K.T);
      return E.select(valid, E.add(E.sub(gi, E.load(gp, {j})), logPow), negInf);
    };
    Value end = E.add(i, E.idx(1));
    Value m = E.forLoop(E.idx(0), end, E.idx(1), {negInf},
                        [&](Value j, ValueRange acc) {
                          return SmallVector<Value>{E.max(acc[0], score(j))};
                        })[0];
    Value mFinite = E.cmpf(arith::CmpFPredicate::ONE, m, negInf);
    Value mSafe = E.select(mFinite, m, E.f32(0.0));
    auto sums = E.forLoop(
        E.idx(0), end, E.idx(1), {E.f32(0.0), E.f32(0.0)},
        [&](Value j, ValueRange acc) {
          Value sij = score(j);
          Value w = E.select(E.cmpf(arith::CmpFPredicate::ONE, sij, negInf),
                             E.exp(E.sub(sij, mSafe)), E.f32(0.0));
          Value t = E.min(E.add(t0, j), E.sub(K.T, E.idx(1)));
          Value vj = E.convert(
              E.load(v, {E.add(K.tokenOffset(t, s.h, h, s.e), K.col)}), f32);
          return SmallVector<Value>{E.fma(w, vj, acc[0]), E.add(acc[1], w)};
        });

    // Combine at the larger of the two scales, so nothing overflows:
    // y = (num e^(m-M) + ns e^(G_i-M)) / (den e^(m-M) + ds e^(G_i-M)).
    // A state built from keys gives ds >= 0; any other state may not, so
    // its size is |ds| and its sign stays in the sums (SPEC: y = 0 only
    // where the denominator is 0).
    Value hasState = E.cmpf(arith::CmpFPredicate::ONE, ds, E.f32(0.0));
    Value absDs = E.select(hasState, E.abs(ds), E.f32(1.0));
    Value stateScale = E.select(hasState, E.add(gi, E.log(absDs)), negInf);
    Value M = E.max(m, stateScale);
    Value any = E.cmpf(arith::CmpFPredicate::ONE, M, negInf);
    Value MSafe = E.select(any, M, E.f32(0.0));
    Value blockWeight =
        E.select(mFinite, E.exp(E.sub(mSafe, MSafe)), E.f32(0.0));
    Value stateWeight = E.select(any, E.exp(E.sub(gi, MSafe)), E.f32(0.0));
    Value num = E.add(E.mul(sums[0], blockWeight), E.mul(ns, stateWeight));
    Value den = E.add(E.mul(sums[1], blockWeight), E.mul(ds, stateWeight));
    Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, den, E.f32(0.0));
    Value yv = E.select(nonzero, E.div(num, E.select(nonzero, den, E.f32(1.0))),
                        E.f32(0.0));
    Value t = E.add(t0, i);
    E.ifThen(E.ult(t, K.T), [&] {
      E.store(E.convert(yv, K.elem), y,
              {E.add(K.tokenOffset(t, s.hq, hq, s.e), K.col)});
    });
    return SmallVector<Value>{};
  });
  gpu::ReturnOp::create(b, E.loc);
}

} // namespace

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
  for (int64_t chunk = 128; chunk <= 1024; chunk *= 2)
    if (outputTileOf(spec, chunk))
      chunks.push_back(chunk);
  return chunks;
}

std::optional<ChunkStatePass> chunkStatePassOf(const AttentionKernelSpec &spec,
                                               int64_t chunk) {
  return chunkStatePass(spec.p, spec.d, spec.e, chunk,
                        spec.dtype == ElementKind::F32 ? 4 : 2,
                        spec.dtype == ElementKind::F16);
}

int64_t chunkedThreadsPerBlock(const AttentionKernelSpec &spec) {
  return stateRowLanes(spec) * spec.e;
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
  // no whole chunk in workgroup memory. f32: the scalar whole-chunk kernels.
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
  // 16-bit inputs take them all; f32 the scalar whole-chunk kernels.
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
  emit(runtime::KernelId::ChunkStates,
       [&] { buildStates(builder, module, spec, chunk, dim); });
  emit(runtime::KernelId::ChunkScan, [&] {
    if (failed(buildScan(builder, module, spec, chunk, dim)))
      llvm::report_fatal_error("chunk_scan: the tile lowering failed");
  });
  emit(runtime::KernelId::ChunkOutput,
       [&] { buildOutput(builder, module, spec, chunk, dim); });
  return names;
}

} // namespace sympow
