//===- ChunkedMmaKernels.cpp - chunk_states/chunk_output on tensor cores -===//
//
// bf16/f16 inputs: the state's rows (phi features) go in groups of
// kGroupRows, built as blocks in workgroup memory and multiplied with
// mma.sync m16n8k16 (f32 accumulators, ldmatrix operands). A phi block, the
// state read by chunk_output, and rotated or scaled Q/K are kept as
// hi + lo bf16 pairs (x = hi + lo to about 16 bits): rounding them once to
// bf16 would cost about 2^-9 of each term, more than the 1e-4 the final
// state is held to. f16 values are exact as bf16 hi + lo; bf16 values are
// exact as they are. Group g holds rows f * G + g (f < kGroupRows, G
// groups), so each thread steps its feature row with nextMultiset.
//
//===----------------------------------------------------------------------===//

#include "ChunkedCommon.h"
#include "MmaTiles.h"
#include "SymmetricPowerRows.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using sympow::gpu_detail::Emitter;

namespace sympow::chunked {

//===----------------------------------------------------------------------===//
// chunk_states on tensor cores (bf16/f16): dS_n = Phi^T [V | 1], Phi the
// chunk's weighted features, built block by block in workgroup memory.
//===----------------------------------------------------------------------===//

void buildStatesMma(OpBuilder &b, gpu::GPUModuleOp module,
                    const AttentionKernelSpec &s, int64_t C, int64_t dim) {
  MLIRContext *ctx = b.getContext();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), bf16 = b.getBF16Type();
  auto args =
      gpu_detail::kernelArguments(ctx, s, runtime::KernelId::ChunkStates);
  int64_t r = s.effectiveRotaryDims();
  int64_t CP = paddedChunk(C), F = kGroupRows, W = kMmaThreads / 32;
  int64_t vs = valueStride(s), nTiles = s.e / 8 + 1;
  // f16 values are exact as bf16 hi + lo; bf16 values are exact as they are.
  bool splitV = s.dtype != ElementKind::BF16;
  using gpu_detail::workgroupMemRef;
  SmallVector<Type> wg = {workgroupMemRef({C * s.d}, f32),
                          workgroupMemRef({CP}, f32),
                          workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64),
                          workgroupMemRef({CP, F + 8}, bf16),
                          workgroupMemRef({CP, F + 8}, bf16),
                          workgroupMemRef({CP, vs}, bf16)};
  if (splitV)
    wg.push_back(workgroupMemRef({CP, vs}, bf16));
  gpu::GPUFuncOp fn =
      createKernel(b, module, runtime::KernelId::ChunkStates, args, wg,
                   kMmaThreads, C, s.h, kMmaBlocksPerSM);
  Emitter E(b, module.getLoc());
  Chunked K{s, E, C, dim, s.hq / s.h, elem};
  K.threadCount = kMmaThreads;
  bindIds(K, fn, args);
  using runtime::KernelArg;
  Value k = args.get(fn, KernelArg::K), v = args.get(fn, KernelArg::V);
  Value logG = args.get(fn, KernelArg::LogG);
  Value logGamma = args.get(fn, KernelArg::LogGamma);
  Value counts = args.get(fn, KernelArg::Counts);
  Value dS = args.get(fn, KernelArg::ChunkS),
        dZ = args.get(fn, KernelArg::ChunkZ),
        decay = args.get(fn, KernelArg::Decay);
  auto attrs = fn.getWorkgroupAttributions();
  Value keys = attrs[0], weights = attrs[1], theta = attrs[2];
  Value phiHi = attrs[3], phiLo = attrs[4], vHi = attrs[5];
  Value vLo = splitV ? Value(attrs[6]) : Value();

  Value n = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::x);
  Value h = gpu::BlockIdOp::create(b, E.loc, gpu::Dimension::y);
  Value t0 = E.mul(n, E.idx(C));
  gpu_detail::emitThetaTable(E, s, theta, K.tid, K.threads());
  emitGatePrefix(K, logG, logGamma, h, t0, weights);
  emitChunkWeights(K, weights, CP, t0, decay, K.chunkOffset(n, h, 1));
  gpu::BarrierOp::create(b, E.loc); // theta
  emitLoadRotatedTile(K, k, s.h, h, t0, counts, h, theta, 1.0, keys);
  gpu_detail::MmaTiles M(E, bf16, E.rem(K.tid, E.idx(32)));
  // [V | 1 | 0...] over the padded chunk, zero past T and C.
  E.forLoop(K.tid, E.idx(CP * (s.e + 8)), E.idx(K.threads()), {},
            [&](Value item, ValueRange) {
              Value j = E.div(item, E.idx(s.e + 8));
              Value i = E.rem(item, E.idx(s.e + 8));
              Value t = E.add(t0, j);
              Value tc = E.min(t, E.sub(K.T, E.idx(1)));
              Value ic = E.min(i, E.idx(s.e - 1));
              Value x = E.convert(
                  E.load(v, {E.add(K.tokenOffset(tc, s.h, h, s.e), ic)}), f32);
              Value valid = arith::AndIOp::create(b, E.loc, E.ult(t, K.T),
                                                  E.ult(j, E.idx(C)));
              Value isV = E.ult(i, E.idx(s.e));
              Value one =
                  E.select(E.cmpi(arith::CmpIPredicate::eq, i, E.idx(s.e)),
                           E.f32(1.0), E.f32(0.0));
              x = E.select(isV, E.select(valid, x, E.f32(0.0)), one);
              M.storeSplit(x, vHi, vLo, {j, i});
              return SmallVector<Value>{};
            });
  gpu::BarrierOp::create(b, E.loc);

  // Thread tid builds feature f = tid % F of each group for tokens
  // tid / F, + W * 32 / F, ...; warp w multiplies m-tile w % 2 with the
  // n-tiles w / 2, w / 2 + W / 2, ... (the last one is the ones column).
  int64_t G = (dim + F - 1) / F, tokenStep = kMmaThreads / F;
  Value f = E.rem(K.tid, E.idx(F));
  Value jFirst = E.div(K.tid, E.idx(F));
  Value warp = E.div(K.tid, E.idx(32));
  Value wm = E.rem(warp, E.idx(2)), wn = E.div(warp, E.idx(2));
  int64_t NW = W / 2, perWarp = (nTiles + NW - 1) / NW;
  Value sBase = K.chunkOffset(n, h, dim * s.e);
  Value zBase = K.chunkOffset(n, h, dim);
  Value valid = E.min(E.idx(C), E.sub(K.T, t0));
  Value kSteps = E.div(E.add(valid, E.idx(15)), E.idx(16));
  SmallVector<Value> first =
      gpu_detail::unrankMultiset(E, s.p, s.d, E.mul(f, E.idx(G)));
  E.forLoop(E.idx(0), E.idx(G), E.idx(1), first, [&](Value grp, ValueRange st) {
    Value row = E.add(E.mul(f, E.idx(G)), grp);
    Value rowValid = E.ult(row, E.idx(dim));
    Value coef = gpu_detail::multisetScale(E, st);
    SmallVector<Value> index;
    for (Value i : st)
      index.push_back(E.min(i, E.idx(s.d - 1)));
    E.forLoop(jFirst, E.idx(CP), E.idx(tokenStep), {},
              [&](Value j, ValueRange) {
                Value jc = E.min(j, E.idx(C - 1));
                Value phi = gpu_detail::multisetProduct(
                    E, keys, E.mul(jc, E.idx(s.d)), index);
                phi = E.mul(E.mul(phi, coef), E.load(weights, {j}));
                phi = E.select(rowValid, phi, E.f32(0.0));
                M.storeSplit(phi, phiHi, phiLo, {j, f});
                return SmallVector<Value>{};
              });
    gpu::BarrierOp::create(b, E.loc);
    SmallVector<Value> acc(perWarp, M.zero());
    Value m0 = E.mul(wm, E.idx(16));
    auto tileOf = [&](int64_t i) {
      return E.min(E.add(wn, E.idx(i * NW)), E.idx(nTiles - 1));
    };
    // Over the tokens before T only (Phi is 0 past them); a run-time bound
    // also keeps LLVM from hoisting every step's ldmatrix address.
    acc = E.forLoop(
        E.idx(0), kSteps, E.idx(1), acc, [&](Value ks, ValueRange in) {
          SmallVector<Value> out(in.begin(), in.end());
          Value k0 = E.mul(ks, E.idx(16));
          Value aHi = M.loadATrans(phiHi, k0, m0);
          Value aLo = M.loadATrans(phiLo, k0, m0);
          for (int64_t i = 0; i < perWarp; ++i) {
            Value n0 = E.mul(tileOf(i), E.idx(8));
            Value bHi = M.loadBTrans(vHi, k0, n0);
            out[i] = M.mma(aLo, bHi, M.mma(aHi, bHi, out[i]));
            if (splitV)
              out[i] = M.mma(aHi, M.loadBTrans(vLo, k0, n0), out[i]);
          }
          return out;
        });
    for (int64_t i = 0; i < perWarp; ++i) {
      Value nt = E.add(wn, E.idx(i * NW));
      E.ifThen(E.ult(nt, E.idx(nTiles)), [&] {
        for (int ri = 0; ri < 2; ++ri) {
          Value feature = E.add(m0, M.row(ri));
          Value out = E.add(E.mul(feature, E.idx(G)), grp);
          E.ifThen(E.ult(out, E.idx(dim)), [&] {
            for (int ci = 0; ci < 2; ++ci) {
              Value c = E.add(E.mul(nt, E.idx(8)), M.col(ci));
              Value x = M.element(acc[i], ri, ci);
              E.ifThen(E.ult(c, E.idx(s.e)), [&] {
                E.store(x, dS,
                        {E.add(E.add(sBase, E.mul(out, E.idx(s.e))), c)});
              });
              E.ifThen(E.cmpi(arith::CmpIPredicate::eq, c, E.idx(s.e)),
                       [&] { E.store(x, dZ, {E.add(zBase, out)}); });
            }
          });
        }
      });
    }
    // The next group's features overwrite Phi.
    gpu::BarrierOp::create(b, E.loc);
    return gpu_detail::nextMultiset(E, s.d, st);
  });
  gpu::ReturnOp::create(b, E.loc);
}

namespace {

//===----------------------------------------------------------------------===//
// chunk_output on tensor cores (bf16/f16). Per chunk and query head:
//   P = exp(s - m) of the causal block (P rounded to bf16 as in the
//   attention kernel), [num_I | den_I] = P [V | 1];
//   [num_S | den_S] = phi(Q) [S | Z] with phi(Q) and the state as hi + lo
//   bf16 pairs, feature group by feature group;
//   combined as the scalar kernel does, at the larger of the two scales.
// Workgroup memory is one arena reused by the phases (memref.view).
// The scores s = q.k are mma tiles too (Q and K as hi + lo bf16).
//===----------------------------------------------------------------------===//

/// Byte sizes of the tensor-core chunk_output's workgroup arrays.
struct OutputMmaLayout {
  int64_t CP, qBytes, pBytes, kBytes, maxBytes, vBytes, phiBytes, sBytes;
  int64_t arena, vStride, pStride, phiStride, kStride;
  bool splitV;

  OutputMmaLayout(const AttentionKernelSpec &s, int64_t C) {
    CP = paddedChunk(C);
    splitV = s.dtype != ElementKind::BF16;
    vStride = valueStride(s);
    pStride = CP + 8;
    phiStride = kGroupRows + 8;
    qBytes = CP * s.d * 4;
    pBytes = CP * pStride * 2;
    kStride = s.d + 8;
    kBytes = CP * kStride * 2 * 2;
    maxBytes = CP * (CP / 8) * 4;
    vBytes = CP * vStride * 2 * (splitV ? 2 : 1);
    phiBytes = CP * phiStride * 2 * 2;
    sBytes = kGroupRows * vStride * 2 * 2;
    arena = std::max(pBytes + std::max(kBytes + maxBytes, vBytes),
                     phiBytes + sBytes);
  }
  int64_t total(const AttentionKernelSpec &s) const {
    return qBytes + arena + 4 * CP * 4 + s.effectiveRotaryDims() / 2 * 8;
  }
};

/// Warps per m-tile of the output of the tensor-core chunk_output: each
/// warp keeps one m-tile (its A fragments load once per k-step) and every
/// group-th n-tile. 0 when the chunk has more m-tiles than warps.
int64_t outputWarpsPerRow(int64_t C) {
  return kMmaThreads / 32 / (paddedChunk(C) / 16);
}

/// Output tiles (16 x 8) per warp of the tensor-core chunk_output.
int64_t outputTilesPerWarp(const AttentionKernelSpec &s, int64_t C) {
  int64_t group = outputWarpsPerRow(C), nTiles = s.e / 8 + 1;
  return group ? (nTiles + group - 1) / group : nTiles;
}

} // namespace

void buildOutputMma(OpBuilder &b, gpu::GPUModuleOp module,
                    const AttentionKernelSpec &s, int64_t C, int64_t dim) {
  MLIRContext *ctx = b.getContext();
  Location loc = module.getLoc();
  Type elem = gpu_detail::elementType(ctx, s.dtype);
  Type f32 = b.getF32Type(), f64 = b.getF64Type(), bf16 = b.getBF16Type();
  Type i8 = b.getIntegerType(8);
  auto args =
      gpu_detail::kernelArguments(ctx, s, runtime::KernelId::ChunkOutput, C);
  int64_t r = s.effectiveRotaryDims();
  OutputMmaLayout L(s, C);
  int64_t CP = L.CP, F = kGroupRows, W = kMmaThreads / 32;
  int64_t nTiles = s.e / 8 + 1, mTiles = CP / 16;
  int64_t perWarp = outputTilesPerWarp(s, C);
  using gpu_detail::workgroupMemRef;
  gpu::GPUFuncOp fn = createKernel(
      b, module, runtime::KernelId::ChunkOutput, args,
      {workgroupMemRef({CP * s.d}, f32), workgroupMemRef({L.arena}, i8),
       workgroupMemRef({CP}, f32), workgroupMemRef({CP}, f32),
       workgroupMemRef({CP}, f32), workgroupMemRef({CP}, f32),
       workgroupMemRef({std::max<int64_t>(1, r / 2)}, f64)},
      kMmaThreads, C, s.hq, kMmaBlocksPerSM);
  Emitter E(b, loc);
  Chunked K{s, E, C, dim, s.hq / s.h, elem};
  K.threadCount = kMmaThreads;
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
  Value qs = wg[0], arena = wg[1], gp = wg[2], rowMax = wg[3], denI = wg[4],
        denS = wg[5], theta = wg[6];
  auto view = [&](int64_t offset, ArrayRef<int64_t> shape, Type type) {
    return memref::ViewOp::create(b, loc, workgroupMemRef(shape, type), arena,
                                  E.idx(offset), ValueRange{})
        .getResult();
  };
  // Phase A: P, K and the tile maxima; B: P and V; C: phi(Q) and the state.
  Value pTile = view(0, {CP, L.pStride}, bf16);
  Value kHi = view(L.pBytes, {CP, L.kStride}, bf16);
  Value kLo = view(L.pBytes + CP * L.kStride * 2, {CP, L.kStride}, bf16);
  Value tileMax = view(L.pBytes + L.kBytes, {CP, CP / 8}, f32);
  Value vHi = view(L.pBytes, {CP, L.vStride}, bf16);
  Value vLo = L.splitV
                  ? view(L.pBytes + CP * L.vStride * 2, {CP, L.vStride}, bf16)
                  : Value();
  Value phiHi = view(0, {CP, L.phiStride}, bf16);
  Value phiLo = view(CP * L.phiStride * 2, {CP, L.phiStride}, bf16);
  Value sHi = view(L.phiBytes, {F, L.vStride}, bf16);
  Value sLo = view(L.phiBytes + F * L.vStride * 2, {F, L.vStride}, bf16);

  Value n = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value hq = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value h = E.div(hq, E.idx(K.g));
  Value t0 = E.mul(n, E.idx(C));
  Value valid = E.min(E.idx(C), E.sub(K.T, t0));
  Value kSteps = E.div(E.add(valid, E.idx(15)), E.idx(16));
  gpu_detail::emitThetaTable(E, s, theta, K.tid, K.threads());
  emitGatePrefix(K, logG, logGamma, h, t0, gp);
  gpu::BarrierOp::create(b, loc); // theta
  emitLoadRotatedTile(K, q, s.hq, hq, t0, counts, h, theta, s.effectiveScale(),
                      qs);
  emitLoadRotatedTile(
      K, k, s.h, h, t0, counts, h, theta, 1.0, Value(),
      [&](Value row, Value col, Value x) {
        gpu_detail::MmaTiles::storeSplit(E, x, bf16, kHi, kLo, {row, col});
      });
  // Keys past the chunk are zero.
  E.forLoop(E.add(E.idx(C * s.d), K.tid), E.idx(CP * s.d), E.idx(kMmaThreads),
            {}, [&](Value item, ValueRange) {
              Value row = E.div(item, E.idx(s.d));
              Value col = E.rem(item, E.idx(s.d));
              E.store(E.fconst(bf16, 0.0), kHi, {row, col});
              E.store(E.fconst(bf16, 0.0), kLo, {row, col});
              return SmallVector<Value>{};
            });
  gpu::BarrierOp::create(b, loc);

  // Scores s = q.k on tensor cores: Q (scaled, rotated, f32) split into
  // hi + lo in registers, K as hi + lo in workgroup memory; hi.hi + hi.lo +
  // lo.hi. Two passes over the (query, key) tiles: row maxima of the log
  // weights (per tile, then per row), then P = exp(lw - m) as bf16.
  Value negInf = E.f32(-std::numeric_limits<float>::infinity());
  gpu_detail::MmaTiles M(E, bf16, E.rem(K.tid, E.idx(32)));
  int64_t keyTiles = CP / 8;
  Value warp = E.div(K.tid, E.idx(32));
  auto scoreTile = [&](Value m0, Value n0) {
    Value acc = M.zero();
    for (int64_t kstep = 0; kstep < s.d / 16; ++kstep) {
      SmallVector<Value> hi, lo;
      for (int64_t half = 0; half < 2; ++half)
        for (int ri = 0; ri < 2; ++ri)
          for (int ci = 0; ci < 2; ++ci) {
            Value row = E.min(E.add(m0, M.row(ri)), E.idx(C - 1));
            Value col = E.add(E.idx(kstep * 16 + half * 8), M.col(ci));
            Value x = E.load(qs, {E.add(E.mul(row, E.idx(s.d)), col)});
            Value h = E.convert(x, bf16);
            hi.push_back(h);
            lo.push_back(E.convert(E.sub(x, E.convert(h, f32)), bf16));
          }
      Value aHi = vector::FromElementsOp::create(b, loc, M.fragA, hi);
      Value aLo = vector::FromElementsOp::create(b, loc, M.fragA, lo);
      Value k0 = E.idx(kstep * 16);
      Value bHi = M.loadB(kHi, n0, k0), bLo = M.loadB(kLo, n0, k0);
      acc = M.mma(aHi, bHi, acc);
      acc = M.mma(aHi, bLo, acc);
      acc = M.mma(aLo, bHi, acc);
    }
    // lw[ri][ci] of rows m0 + row(ri), keys n0 + col(ci); -inf past the
    // causal edge, T and the chunk.
    SmallVector<Value> lw;
    for (int ri = 0; ri < 2; ++ri)
      for (int ci = 0; ci < 2; ++ci) {
        Value i = E.add(m0, M.row(ri)), j = E.add(n0, M.col(ci));
        Value gi = E.load(gp, {E.min(i, E.idx(C - 1))});
        Value gj = E.load(gp, {E.min(j, E.idx(C - 1))});
        Value logPow = E.mul(E.f32(static_cast<double>(s.p)),
                             E.logApprox(E.abs(M.element(acc, ri, ci))));
        Value inside = arith::AndIOp::create(
            b, loc, E.cmpi(arith::CmpIPredicate::ule, j, i), E.ult(j, valid));
        lw.push_back(E.select(inside, E.add(E.sub(gi, gj), logPow), negInf));
      }
    return lw;
  };
  auto overTiles =
      [&](llvm::function_ref<void(Value m0, Value n0, Value nt)> body) {
        E.forLoop(warp, E.idx(mTiles * keyTiles), E.idx(W), {},
                  [&](Value tile, ValueRange) {
                    Value nt = E.rem(tile, E.idx(keyTiles));
                    body(E.mul(E.div(tile, E.idx(keyTiles)), E.idx(16)),
                         E.mul(nt, E.idx(8)), nt);
                    return SmallVector<Value>{};
                  });
      };
  // Pass 1: the maximum of each (row, key tile) over its 8 keys.
  overTiles([&](Value m0, Value n0, Value nt) {
    SmallVector<Value> lw = scoreTile(m0, n0);
    for (int ri = 0; ri < 2; ++ri) {
      Value mx = E.max(lw[ri * 2], lw[ri * 2 + 1]);
      for (int64_t off : {1, 2})
        mx = E.max(mx, gpu::ShuffleOp::create(b, loc, mx, off, 32,
                                              gpu::ShuffleMode::XOR)
                           .getShuffleResult());
      E.ifThen(E.cmpi(arith::CmpIPredicate::eq, M.t2, E.idx(0)), [&] {
        E.store(mx, tileMax, {E.add(m0, M.row(ri)), nt});
      });
    }
  });
  gpu::BarrierOp::create(b, loc);
  E.forLoop(K.tid, E.idx(CP), E.idx(kMmaThreads), {}, [&](Value i, ValueRange) {
    Value m = E.forLoop(
        E.idx(0), E.idx(keyTiles), E.idx(1), {negInf},
        [&](Value nt, ValueRange acc) {
          return SmallVector<Value>{E.max(acc[0], E.load(tileMax, {i, nt}))};
        })[0];
    E.store(m, rowMax, {i});
    return SmallVector<Value>{};
  });
  gpu::BarrierOp::create(b, loc);
  // Pass 2: P.
  overTiles([&](Value m0, Value n0, Value) {
    SmallVector<Value> lw = scoreTile(m0, n0);
    for (int ri = 0; ri < 2; ++ri) {
      Value i = E.add(m0, M.row(ri));
      Value m = E.load(rowMax, {i});
      Value mSafe =
          E.select(E.cmpf(arith::CmpFPredicate::ONE, m, negInf), m, E.f32(0.0));
      for (int ci = 0; ci < 2; ++ci) {
        Value x = lw[ri * 2 + ci];
        Value w = E.select(E.cmpf(arith::CmpFPredicate::ONE, x, negInf),
                           E.expApprox(E.sub(x, mSafe)), E.f32(0.0));
        E.store(E.convert(w, bf16), pTile, {i, E.add(n0, M.col(ci))});
      }
    }
  });
  gpu::BarrierOp::create(b, loc); // K's last readers are done

  // [V | 1 | 0...] over the padded chunk, zero past T and C.
  E.forLoop(K.tid, E.idx(CP * (s.e + 8)), E.idx(K.threads()), {},
            [&](Value item, ValueRange) {
              Value j = E.div(item, E.idx(s.e + 8));
              Value c = E.rem(item, E.idx(s.e + 8));
              Value t = E.min(E.add(t0, j), E.sub(K.T, E.idx(1)));
              Value x =
                  E.convert(E.load(v, {E.add(K.tokenOffset(t, s.h, h, s.e),
                                             E.min(c, E.idx(s.e - 1)))}),
                            f32);
              Value one =
                  E.select(E.cmpi(arith::CmpIPredicate::eq, c, E.idx(s.e)),
                           E.f32(1.0), E.f32(0.0));
              x = E.select(E.ult(c, E.idx(s.e)),
                           E.select(E.ult(j, valid), x, E.f32(0.0)), one);
              M.storeSplit(x, vHi, vLo, {j, c});
              return SmallVector<Value>{};
            });
  gpu::BarrierOp::create(b, loc);

  // Output tile i of this warp: m-tile w / group, n-tile w % group +
  // group i, clamped (a warp past the last tile recomputes it and stores
  // nothing).
  int64_t group = outputWarpsPerRow(C);
  Value mWarp = E.div(warp, E.idx(group));
  Value m0 = E.mul(E.min(mWarp, E.idx(mTiles - 1)), E.idx(16));
  SmallVector<Value> n0s, owns;
  for (int64_t i = 0; i < perWarp; ++i) {
    Value nt = E.add(E.rem(warp, E.idx(group)), E.idx(i * group));
    owns.push_back(arith::AndIOp::create(b, loc, E.ult(mWarp, E.idx(mTiles)),
                                         E.ult(nt, E.idx(nTiles))));
    n0s.push_back(E.mul(E.min(nt, E.idx(nTiles - 1)), E.idx(8)));
  }
  SmallVector<Value> accI = E.forLoop(
      E.idx(0), kSteps, E.idx(1), SmallVector<Value>(perWarp, M.zero()),
      [&](Value kstep, ValueRange in) {
        SmallVector<Value> out(in.begin(), in.end());
        Value k0 = E.mul(kstep, E.idx(16));
        Value a = M.loadA(pTile, m0, k0);
        for (int64_t i = 0; i < perWarp; ++i) {
          Value bHi = M.loadBTrans(vHi, k0, n0s[i]);
          out[i] = M.mma(a, bHi, out[i]);
          if (L.splitV)
            out[i] = M.mma(a, M.loadBTrans(vLo, k0, n0s[i]), out[i]);
        }
        return out;
      });
  gpu::BarrierOp::create(b, loc); // P and V are dead

  // The state before the chunk, kGroupRows rows at a time (rows f G + g).
  int64_t G = (dim + F - 1) / F;
  int64_t perLoad = s.e % 4 == 0 ? 4 : 1, itemsPerRow = (s.e + 8) / perLoad;
  Value f = E.rem(K.tid, E.idx(F));
  Value sBase = K.chunkOffset(n, h, dim * s.e);
  Value zBase = K.chunkOffset(n, h, dim);
  SmallVector<Value> init =
      gpu_detail::unrankMultiset(E, s.p, s.d, E.mul(f, E.idx(G)));
  init.append(perWarp, M.zero());
  SmallVector<Value> loop = E.forLoop(
      E.idx(0), E.idx(G), E.idx(1), init, [&](Value grp, ValueRange st) {
        ValueRange tuple = st.take_front(s.p);
        // [S | Z | 0...] rows of this group, as hi + lo: perLoad columns per
        // item, S's in one 16-byte load, Z once per row, the padding and
        // rows past the state without a load.
        E.forLoop(
            K.tid, E.idx(F * itemsPerRow), E.idx(K.threads()), {},
            [&](Value item, ValueRange) {
              Value fr = E.div(item, E.idx(itemsPerRow));
              Value c = E.mul(E.rem(item, E.idx(itemsPerRow)), E.idx(perLoad));
              Value row = E.add(E.mul(fr, E.idx(G)), grp);
              Value inside = E.ult(row, E.idx(dim));
              auto wide = VectorType::get({perLoad}, f32);
              Value x = E.ifElse(
                  arith::AndIOp::create(b, loc, inside, E.ult(c, E.idx(s.e))),
                  wide,
                  [&] {
                    return E.loadVector(
                        prefixS, E.add(E.add(sBase, E.mul(row, E.idx(s.e))), c),
                        perLoad);
                  },
                  [&] {
                    Value isZ = arith::AndIOp::create(
                        b, loc, inside,
                        E.cmpi(arith::CmpIPredicate::eq, c, E.idx(s.e)));
                    Value z = E.ifElse(
                        isZ, f32,
                        [&] { return E.load(prefixZ, {E.add(zBase, row)}); },
                        [&] { return E.f32(0.0); });
                    Value zeros =
                        vector::BroadcastOp::create(b, loc, wide, E.f32(0.0));
                    return vector::InsertOp::create(b, loc, z, zeros,
                                                    ArrayRef<int64_t>{0})
                        .getResult();
                  });
              for (int64_t j = 0; j < perLoad; ++j)
                M.storeSplit(
                    vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{j}),
                    sHi, sLo, {fr, E.add(c, E.idx(j))});
              return SmallVector<Value>{};
            });
        // phi(q_i) for this thread's feature, every query row.
        Value coef = gpu_detail::multisetScale(E, tuple);
        SmallVector<Value> index;
        for (Value x : tuple)
          index.push_back(E.min(x, E.idx(s.d - 1)));
        E.forLoop(E.div(K.tid, E.idx(F)), E.idx(CP), E.idx(kMmaThreads / F), {},
                  [&](Value i, ValueRange) {
                    Value ic = E.min(i, E.idx(C - 1));
                    Value phi =
                        E.mul(coef, gpu_detail::multisetProduct(
                                        E, qs, E.mul(ic, E.idx(s.d)), index));
                    M.storeSplit(phi, phiHi, phiLo, {i, f});
                    return SmallVector<Value>{};
                  });
        gpu::BarrierOp::create(b, loc);
        SmallVector<Value> next = gpu_detail::nextMultiset(E, s.d, tuple);
        SmallVector<Value> acc(st.drop_front(s.p));
        for (int64_t kstep = 0; kstep < F / 16; ++kstep) {
          Value k0 = E.idx(kstep * 16);
          Value aHi = M.loadA(phiHi, m0, k0);
          Value aLo = M.loadA(phiLo, m0, k0);
          for (int64_t i = 0; i < perWarp; ++i) {
            Value bHi = M.loadBTrans(sHi, k0, n0s[i]);
            Value bLo = M.loadBTrans(sLo, k0, n0s[i]);
            acc[i] = M.mma(aHi, bHi, acc[i]);
            acc[i] = M.mma(aLo, bHi, acc[i]);
            acc[i] = M.mma(aHi, bLo, acc[i]);
          }
        }
        llvm::append_range(next, acc);
        // The next group overwrites phi(Q) and the state rows.
        gpu::BarrierOp::create(b, loc);
        return next;
      });
  ArrayRef<Value> accS = ArrayRef<Value>(loop).drop_front(s.p);

  // The denominators (column e) to every warp.
  for (int64_t i = 0; i < perWarp; ++i)
    E.ifThen(owns[i], [&] {
      for (int ri = 0; ri < 2; ++ri) {
        Value c = E.add(n0s[i], M.col(0));
        E.ifThen(E.cmpi(arith::CmpIPredicate::eq, c, E.idx(s.e)), [&] {
          Value row = E.add(m0, M.row(ri));
          E.store(M.element(accI[i], ri, 0), denI, {row});
          E.store(M.element(accS[i], ri, 0), denS, {row});
        });
      }
    });
  gpu::BarrierOp::create(b, loc);

  // y = (num_I e^(m-M) + num_S e^(G_i-M)) / (den_I e^(m-M) + den_S e^(G_i-M))
  // at M = max(m, G_i + log|den_S|) (see the scalar kernel).
  for (int64_t i = 0; i < perWarp; ++i)
    E.ifThen(owns[i], [&] {
      for (int ri = 0; ri < 2; ++ri) {
        Value row = E.add(m0, M.row(ri));
        Value t = E.add(t0, row);
        E.ifThen(E.ult(row, valid), [&] {
          Value m = E.load(rowMax, {row}), gi = E.load(gp, {row});
          Value di = E.load(denI, {row}), ds = E.load(denS, {row});
          Value mFinite = E.cmpf(arith::CmpFPredicate::ONE, m, negInf);
          Value mSafe = E.select(mFinite, m, E.f32(0.0));
          Value hasState = E.cmpf(arith::CmpFPredicate::ONE, ds, E.f32(0.0));
          Value absDs = E.select(hasState, E.abs(ds), E.f32(1.0));
          Value stateScale =
              E.select(hasState, E.add(gi, E.log(absDs)), negInf);
          Value Mx = E.max(m, stateScale);
          Value any = E.cmpf(arith::CmpFPredicate::ONE, Mx, negInf);
          Value MSafe = E.select(any, Mx, E.f32(0.0));
          Value bw = E.select(mFinite, E.exp(E.sub(mSafe, MSafe)), E.f32(0.0));
          Value sw = E.select(any, E.exp(E.sub(gi, MSafe)), E.f32(0.0));
          Value den = E.add(E.mul(di, bw), E.mul(ds, sw));
          Value nonzero = E.cmpf(arith::CmpFPredicate::ONE, den, E.f32(0.0));
          Value inv = E.select(
              nonzero, E.div(E.f32(1.0), E.select(nonzero, den, E.f32(1.0))),
              E.f32(0.0));
          Value base = K.tokenOffset(t, s.hq, hq, s.e);
          for (int ci = 0; ci < 2; ++ci) {
            Value c = E.add(n0s[i], M.col(ci));
            E.ifThen(E.ult(c, E.idx(s.e)), [&] {
              Value num = E.add(E.mul(M.element(accI[i], ri, ci), bw),
                                E.mul(M.element(accS[i], ri, ci), sw));
              E.store(E.convert(E.mul(num, inv), elem), y, {E.add(base, c)});
            });
          }
        });
      }
    });
  gpu::ReturnOp::create(b, loc);
}

/// Whether chunk_states takes the tensor-core kernel: its arrays fit.
bool statesUsesMma(const AttentionKernelSpec &spec, int64_t chunk) {
  int64_t CP = paddedChunk(chunk);
  int64_t values = spec.dtype == ElementKind::BF16 ? 1 : 2;
  int64_t bytes = chunk * spec.d * 4 + CP * 4 +
                  std::max<int64_t>(1, spec.effectiveRotaryDims() / 2) * 8 +
                  2 * CP * (kGroupRows + 8) * 2 +
                  values * CP * valueStride(spec) * 2;
  return bytes <= kStaticSharedBytes;
}

/// Whether chunk_output takes the tensor-core kernel: its arena fits the
/// static workgroup memory and its accumulators a reasonable register count.
bool outputUsesMma(const AttentionKernelSpec &spec, int64_t chunk) {
  return OutputMmaLayout(spec, chunk).total(spec) <= kStaticSharedBytes &&
         outputWarpsPerRow(chunk) > 0 && outputTilesPerWarp(spec, chunk) <= 12;
}

} // namespace sympow::chunked
