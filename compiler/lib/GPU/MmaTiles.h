//===- MmaTiles.h - Warp-level mma.sync tiles ------------------*- C++ -*-===//
//
// One warp's view of mma.sync m16n8k16 (f32 accumulators) on operands in
// workgroup memory, loaded with ldmatrix: the fragment types, the lane
// coordinates of an accumulator, and loads of A (16 x 16) and B (16 x 8)
// fragments from tiles stored either way round. Tiles are 2-D workgroup
// memrefs (rank 3 with a leading buffer index also works: pass `prefix`)
// whose rows start 16-byte aligned.
//
// Accumulator element (ri, ci) of a lane is row `row(ri)` = g + 8 ri and
// column `col(ci)` = 2 (lane % 4) + ci of the 16 x 8 tile, g = lane / 4.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_MMATILES_H
#define SYMPOW_LIB_GPU_MMATILES_H

#include "Emitter.h"

#include "mlir/IR/BuiltinTypes.h"

namespace sympow::gpu_detail {

class MmaTiles {
public:
  /// `elem` is the multiplicand type (bf16 or f16); `lane` the lane id.
  MmaTiles(Emitter &E, mlir::Type elem, mlir::Value lane);

  Emitter &E;
  mlir::Type elem;
  mlir::VectorType fragA, fragB, fragC;
  mlir::Value lane, g, t2;

  /// Row of accumulator element (ri, ...) in its 16 x 8 tile.
  mlir::Value row(int ri) const { return ri ? g8 : g; }
  /// Column of accumulator element (..., ci) in its 16 x 8 tile.
  mlir::Value col(int ci) const { return ci ? t21 : t2; }

  /// c + a * b, m16n8k16.
  mlir::Value mma(mlir::Value a, mlir::Value b, mlir::Value c);
  /// A zero accumulator.
  mlir::Value zero();
  /// Element (ri, ci) of an accumulator, and an accumulator from four.
  mlir::Value element(mlir::Value acc, int ri, int ci);
  mlir::Value fromElements(mlir::ValueRange elems);

  /// The A fragment of rows [m0, m0 + 16) x columns [k0, k0 + 16) of a tile
  /// stored as [m][k] (ldmatrix x4).
  mlir::Value loadA(mlir::Value mem, mlir::Value m0, mlir::Value k0,
                    mlir::ValueRange prefix = {});
  /// The same from a tile stored as [k][m] (ldmatrix x4 .trans).
  mlir::Value loadATrans(mlir::Value mem, mlir::Value k0, mlir::Value m0,
                         mlir::ValueRange prefix = {});
  /// The B fragment of k [k0, k0 + 16) x n [n0, n0 + 8) from a tile stored
  /// as [n][k] (ldmatrix x2), e.g. keys for Q K^T.
  mlir::Value loadB(mlir::Value mem, mlir::Value n0, mlir::Value k0,
                    mlir::ValueRange prefix = {});
  /// The same from a tile stored as [k][n] (ldmatrix x2 .trans), e.g. V.
  mlir::Value loadBTrans(mlir::Value mem, mlir::Value k0, mlir::Value n0,
                         mlir::ValueRange prefix = {});

  /// Stores f32 `x` as hi = round(x) into `hi` and, with `lo`, the rest
  /// round(x - hi) into `lo` (x = hi + lo to about twice the precision).
  void storeSplit(mlir::Value x, mlir::Value hi, mlir::Value lo,
                  mlir::ValueRange indices) {
    storeSplit(E, x, elem, hi, lo, indices);
  }
  static void storeSplit(Emitter &E, mlir::Value x, mlir::Type elem,
                         mlir::Value hi, mlir::Value lo,
                         mlir::ValueRange indices);

private:
  mlir::Value ldmatrix(mlir::Value mem, mlir::ValueRange prefix, mlir::Value r,
                       mlir::Value c, mlir::VectorType type, bool trans);
  mlir::Value g8, t21, lane16, lane8, aCol, bCol, tRow, tCol;
};

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_MMATILES_H
