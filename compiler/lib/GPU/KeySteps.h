//===- KeySteps.h - Key steps copied for warpgroup MMAs ---------*- C++ -*-===//
//
// What the tile kernels that walk keys in steps (attention, chunk_output)
// share: rows of a [B, T, heads, width] tensor copied by cp.async in
// 16-byte runs (the keys and values of a step into the warpgroup MMA's
// canonical layouts, q row-major), and a step's gate sums by a reversed
// scan of shuffles in the first warp.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_KEYSTEPS_H
#define SYMPOW_LIB_GPU_KEYSTEPS_H

#include "TileKernels.h"

namespace sympow::gpu_detail {

/// The copies of a tile's rows of one sequence and head in 16-byte runs (8
/// elements of 16 bits): pass n of a thread takes run thread + n P of the
/// order a plan's `rowOf` / `runColumn` give, placed by its `at(j, c)` (row
/// j's run from column c). The order takes the runs in groups of
/// `groupRows` whole rows; where P runs are whole groups, pass n is pass 0
/// moved down by constants (`rowsPerPass` rows, `destRowStride` elements a
/// row), so each thread keeps one row, column, source offset (from the
/// rows' first token) and destination; else every pass keeps its own.
class RunCopies {
public:
  static constexpr int64_t kRun = 8;

  struct Pass {
    Value row, column, from, to;
    Value inTile; // null: every thread's run is inside
  };
  /// Columns [firstColumn, + width) of rows `rowWidth` wide.
  struct Plan {
    Value src, dest, head, firstColumn;
    int64_t heads, width, rowWidth, runs, destRowStride, rowsPerPass = 0;
    llvm::SmallVector<Pass> passes = {};
  };

  RunCopies(Tiles &t, Value batch, Value T) : t(t), batch(batch), T(T) {}

  Plan plan(Value src, int64_t heads, Value head, int64_t tileRows,
            int64_t width, Value dest, int64_t groupRows, int64_t destRowStride,
            llvm::function_ref<Value(Value r)> rowOf,
            llvm::function_ref<Value(Value r)> runColumn,
            llvm::function_ref<Value(Value j, Value c)> at,
            Value firstColumn = {}, int64_t rowWidth = 0);
  /// Rows stored row-major, `stride` elements apart: runs along a row first.
  Plan rowMajor(Value src, int64_t heads, Value head, int64_t tileRows,
                int64_t width, Value dest, int64_t stride);
  /// A step of `keys` rows in the warpgroup MMA's canonical layout at
  /// dest[destAt]: row j's columns 8c .. 8c + 7 at (c keys + j) 8 (keys
  /// K-major as the scores' B, [V | 1] as P's transposed B). Eight
  /// adjacent runs are eight rows of one column piece, 128 adjacent bytes:
  /// conflict-free stores, and a warp reads 64 bytes of each of 8 rows.
  Plan canonical(Value src, int64_t heads, Value head, int64_t keys,
                 int64_t width, Value dest, int64_t destAt,
                 Value firstColumn = {}, int64_t rowWidth = 0);
  /// Issues the plan's copies of the rows from token `first`: all of them
  /// inside T, or (`count`) rows count .. tileRows - 1 as zeros, read from
  /// row 0 (inside T: count >= 1).
  void copy(const Plan &plan, Value first, Value count);
  /// Column `column` (a multiple of 8) of a canonical step of `keys` rows
  /// at dest[destAt] as ones, the 7 columns after it as zeros: [V | 1]'s
  /// ones column, one 16-byte store per row.
  void storeOnesColumn(Value dest, int64_t destAt, int64_t keys, int64_t column,
                       Type element);

private:
  Tiles &t;
  Value batch, T;
};

/// Where row j's 8-column piece `piece` starts in a canonical step of `keys`
/// rows (RunCopies::canonical): (piece keys + j) 8 (index tiles).
Value canonicalPieceOffset(Tiles &t, Value j, Value piece, int64_t keys);

/// Warpgroup MMA descriptors of a canonical step of `keys` rows at
/// array[destAt] (RunCopies::canonical): its 16 columns from `column` as
/// the scores' B (keys K-major: core matrices of 8 keys 128 bytes apart,
/// the next 8 columns keys * 16 bytes on), and its rows k0 .. k0 + 15 as
/// P's B ([V | 1] N-major: 8 rows of a core matrix 16 bytes apart, the next
/// 8 rows 128 bytes on, the next 8 columns keys * 16 bytes on).
Value keysDescriptor(Tiles &t, Value array, int64_t destAt, int64_t keys,
                     int64_t column);
Value valuesDescriptor(Tiles &t, Value array, int64_t destAt, int64_t keys,
                       int64_t k0);

/// A key step's gate sums into `keyGates` (ChunkOutputTile::
/// keyGateElements(K)): the first warp takes keys 2 l and 2 l + 1 (K = 64)
/// or l (K = 32) in lane l from `gatesOf(perThread)` (0 past the step's
/// keys) and sums them after each key by a reversed scan of shuffles:
/// sigma_j (the gates after key j, <= 0) at [j], 2^sigma_j at [K + j], the
/// step's sum at [2 K]. The other warps skip it (a branch uniform in each
/// warp); a barrier publishes it.
void storeKeyStepGates(Tiles &t, Value keyGates, int64_t K,
                       llvm::function_ref<Value(int64_t perThread)> gatesOf);

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_KEYSTEPS_H
