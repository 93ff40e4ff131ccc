//===- Emitter.h - Small IR-building helpers for kernel generators -*- C++
//-*-===//
//
// Kernels are written as straight C++ over these helpers: constants,
// arithmetic that picks the integer or float op from the type, loops with
// loop-carried values, and conversions between f16/bf16/f32/f64.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_EMITTER_H
#define SYMPOW_LIB_GPU_EMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace sympow::gpu_detail {

class Emitter {
public:
  Emitter(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Value idx(int64_t v);
  mlir::Value i32(int64_t v);
  mlir::Value f32(double v);
  mlir::Value f64(double v);
  mlir::Value fconst(mlir::Type type, double v);

  // Integer (index/iN) or float arithmetic, chosen from the operand type.
  // Integer ops, compares and selects fold as they are built (x * 1, two
  // constants): the emulator counts the ops a kernel's IR holds, and LLVM
  // folds these before the GPU sees them.
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y); // unsigned for integers
  mlir::Value rem(mlir::Value x, mlir::Value y); // unsigned for integers
  mlir::Value min(mlir::Value x, mlir::Value y); // unsigned for integers
  mlir::Value max(mlir::Value x, mlir::Value y); // float: NaN-propagating
  mlir::Value fma(mlir::Value x, mlir::Value y, mlir::Value z);
  mlir::Value neg(mlir::Value x);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  mlir::Value cmpi(mlir::arith::CmpIPredicate pred, mlir::Value x,
                   mlir::Value y);
  mlir::Value cmpf(mlir::arith::CmpFPredicate pred, mlir::Value x,
                   mlir::Value y);
  mlir::Value ult(mlir::Value x, mlir::Value y) {
    return cmpi(mlir::arith::CmpIPredicate::ult, x, y);
  }

  mlir::Value exp(mlir::Value x);
  mlir::Value log(mlir::Value x);
  /// exp and log of attention weights, approximate (afn: ex2.approx and
  /// lg2.approx on NVPTX, relative error ~1e-6, far inside SPEC's 1e-4):
  /// two per score, where libdevice's expf and logf take about 8 and 20
  /// instructions.
  mlir::Value expApprox(mlir::Value x);
  mlir::Value logApprox(mlir::Value x);
  /// 2^x and log2(x), `afn`: the hardware's own bases (MUFU.EX2, MUFU.LG2),
  /// without the scaling expApprox/logApprox add.
  mlir::Value exp2Approx(mlir::Value x);
  mlir::Value log2Approx(mlir::Value x);
  /// The same with subnormals flushed (sympow_tile.exp2_ftz, log2_ftz: one
  /// MUFU each, without ptxas' 3 to 4 instructions of fixup): 2^x below
  /// 2^-126 is 0, log2 of a subnormal -inf. For weights against a row's
  /// running maximum, where 2^-126 of the largest cannot matter.
  mlir::Value exp2Flush(mlir::Value x);
  mlir::Value log2Flush(mlir::Value x);
  mlir::Value abs(mlir::Value x);
  /// x^n for n >= 1, by squarings.
  mlir::Value power(mlir::Value x, int64_t n);
  mlir::Value cos(mlir::Value x);
  mlir::Value sin(mlir::Value x);
  mlir::Value floor(mlir::Value x);

  /// Float conversion between any of f16, bf16, f32, f64 (identity if equal).
  mlir::Value convert(mlir::Value x, mlir::Type to);
  /// index -> f64 (through i64, exact below 2^53).
  mlir::Value indexToF64(mlir::Value x);
  mlir::Value indexCast(mlir::Value x, mlir::Type to);

  mlir::Value load(mlir::Value mem, mlir::ValueRange indices);
  /// `width` consecutive elements of a 1-D memref from `index` as one
  /// vector access; the caller guarantees `index` is a multiple of `width`
  /// in a buffer aligned to the vector's bytes.
  mlir::Value loadVector(mlir::Value mem, mlir::Value index, int64_t width);
  void store(mlir::Value v, mlir::Value mem, mlir::ValueRange indices);

  using LoopBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
      mlir::Value iv, mlir::ValueRange iterArgs)>;
  /// scf.for; `body` returns the values yielded (as many as `inits`).
  llvm::SmallVector<mlir::Value> forLoop(mlir::Value lb, mlir::Value ub,
                                         mlir::Value step,
                                         mlir::ValueRange inits, LoopBody body);
  /// scf.if with no results.
  void ifThen(mlir::Value cond, llvm::function_ref<void()> thenBody);
  /// scf.if with one result of `type`, each branch returning it.
  mlir::Value ifElse(mlir::Value cond, mlir::Type type,
                     llvm::function_ref<mlir::Value()> thenBody,
                     llvm::function_ref<mlir::Value()> elseBody);
  /// scf.if with results of `types`, each branch returning them.
  using Branch = llvm::function_ref<llvm::SmallVector<mlir::Value>()>;
  llvm::SmallVector<mlir::Value> ifElse(mlir::Value cond, mlir::TypeRange types,
                                        Branch thenBody, Branch elseBody);
};

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_EMITTER_H
