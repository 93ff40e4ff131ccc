//===- SymmetricPowerTiles.h - Rows of phi^p as tiles -----------*- C++ -*-===//
//
// SymmetricPowerRows.h for tile kernels (docs/TileIR.md): each element of
// an index tile is a row of phi^p (a multiset, p index tiles); these find,
// step, scale and multiply out rows element-wise. Used by recurrent_state
// and chunk_state_pass.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_SYMMETRICPOWERTILES_H
#define SYMPOW_LIB_GPU_SYMMETRICPOWERTILES_H

#include "TileKernels.h"

namespace sympow::gpu_detail {

/// The multiset after each of `row` (index tiles), as nextMultiset on
/// every element.
llvm::SmallVector<Value> nextRows(Tiles &t, int64_t d, mlir::ValueRange row);

/// The multiset of lexicographic rank `rank` (an index tile), each position
/// by a binary search over closed-form counts: O(p log d) per element.
llvm::SmallVector<Value> unrankRows(Tiles &t, int64_t p, int64_t d, Value rank);

/// sqrt(p! / prod_k m_k!) of each row, in `type`.
Value rowScales(Tiles &t, Type type, mlir::ValueRange row);

/// prod_l x[offset + i_l] of each row from an f32 workgroup array, in
/// `type`; rows outside the state (mask false) give 0. `contiguous`: each
/// i_l is a run (sympow_tile.run), read by one vector load.
Value rowProducts(Tiles &t, Type type, Value x, int64_t offset,
                  mlir::ValueRange row, Value mask, bool contiguous = false);

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_SYMMETRICPOWERTILES_H
