//===- SymmetricPowerRows.h - Walking the rows of phi^p in kernels -*- C++
//-*-===//
//
// A coordinate of phi^p is a multiset i1 <= ... <= ip of {0..d-1}; SPEC
// orders them lexicographically. Kernels that touch a state (S, Z) walk a
// contiguous range of its rows: find the first row of the range by its rank
// (SymmetricPowerTiles' unrankRows), then step (nextMultiset). p is a
// compile-time constant, so a row is p index Values.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_SYMMETRICPOWERROWS_H
#define SYMPOW_LIB_GPU_SYMMETRICPOWERROWS_H

#include "Emitter.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace sympow::gpu_detail {

/// The multiset after `row` in lexicographic order (meaningless after the
/// last one): the last index below d - 1 grows by one and every index after
/// it takes its new value. The indices may be tiles: `index` then makes
/// the constants (SymmetricPowerTiles' nextRows).
llvm::SmallVector<mlir::Value>
nextMultiset(Emitter &E, int64_t d, mlir::ValueRange row,
             llvm::function_ref<mlir::Value(int64_t)> index = {});

/// p! / prod_k m_k!, f32 (exact), where m_k counts index k in `row`.
mlir::Value multisetRatio(Emitter &E, mlir::ValueRange row);
/// sqrt(p! / prod_k m_k!), f32.
mlir::Value multisetScale(Emitter &E, mlir::ValueRange row);

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_SYMMETRICPOWERROWS_H
