//===- TileKernels.h - Building kernels in the tile IR ----------*- C++ -*-===//
//
// What every kernel written in the tile IR (docs/TileIR.md) starts from: a
// gpu.func with the kernel ABI's arguments and its #sympow_tile.kernel
// launch, and a builder of 1-D blocked tiles (`threads` threads, R adjacent
// elements each) for its body. Used by chunk_scan and the recurrent kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_TILEKERNELS_H
#define SYMPOW_LIB_GPU_TILEKERNELS_H

#include "Emitter.h"
#include "KernelCommon.h"

#include "sympow/Compiler/Tile/TileDialect.h"

namespace sympow::gpu_detail {

using mlir::Type;
using mlir::Value;

/// Tiles of one kernel: `threads` threads, R elements each.
struct Tiles {
  mlir::OpBuilder &b;
  mlir::Location loc;
  Emitter &E;
  int64_t threads;

  mlir::RankedTensorType type(Type element, int64_t perThread = 1);
  /// The tile of x's type and layout with elements `element`.
  Type like(Value x, Type element);
  Value splat(Value scalar, int64_t perThread = 1);
  Value index(int64_t v, int64_t perThread = 1);
  Value constant(Type element, double v, int64_t perThread = 1);
  Value range(int64_t perThread = 1);
  /// base[at] where `mask` (null: everywhere), 0 elsewhere.
  Value load(Value base, Value at, Value mask, bool contiguous = false);
  void store(Value x, Value base, Value at, Value mask,
             bool contiguous = false);
  /// An f32 tile as bf16 into `hi`, or as hi + lo halves (splitBf16) into
  /// `hi` and `lo` where `lo` is given.
  void storeBf16(Value x, Value hi, Value lo, Value at, Value mask,
                 bool contiguous = false);
  /// Each thread's run of `elements` from base[from] to dest[to] (one
  /// start per thread), asynchronously (sympow_tile.async_copy): skipped
  /// where `mask` is false, zeros where `read` is; asyncWait before use.
  void asyncCopy(Value base, Value from, Value dest, Value to, int64_t elements,
                 Value mask, Value read);
  void asyncWait();
  Value expand(Value x, int64_t perThread);
  /// Slot s of each thread's runs of `even` and `odd` at slots 2 s and 2 s
  /// + 1 of one run (sympow_tile.interleave).
  Value interleave(Value even, Value odd);
  /// Slots offset .. offset + count - 1 of each thread's run of x
  /// (sympow_tile.slots).
  Value slots(Value x, int64_t offset, int64_t count);
  /// Each thread's run of `perThread` offsets from its element of `start`
  /// (sympow_tile.run): what contiguous loads and stores take.
  Value run(Value start, int64_t perThread);
  /// R of a blocked tile x.
  static int64_t perThread(Value x);
  Value columnSum(Value x, int64_t columns);
  Value convert(Value x, Type element);
  /// x and y, where a null mask holds everywhere (so null and null is
  /// null: no mask).
  Value logicalAnd(Value x, Value y);
  Value eq(Value x, Value y);
  /// body(item, live) over the items 0 .. count - 1, one a thread, in
  /// pieces of `threads`: an scf.for over the pieces where there are
  /// several (unrolled, their copies let ptxas hoist every piece's loads
  /// and hold far more registers); `live` is item < count.
  void forEachItem(int64_t count,
                   llvm::function_ref<void(Value item, Value live)> body);
};

/// Matrix tiles of one kernel in the mma.sync layouts (docs/TileIR.md,
/// "Matrix tiles and dot"): accumulators of mma<warps = [warpsM, warpsN]>
/// (warps down the columns first where `columnMajor`) and the dot operands
/// of that parent.
struct MatrixTiles {
  mlir::OpBuilder &b;
  mlir::Location loc;
  int64_t warpsM, warpsN;
  bool columnMajor = false;

  /// An M x N f32 accumulator.
  mlir::RankedTensorType accumulator(int64_t rows, int64_t cols);
  /// Dot operand `which` (0: A, rows x k; 1: B, k x cols).
  mlir::RankedTensorType operand(unsigned which, int64_t rows, int64_t cols,
                                 Type element);
  /// Element (i, j) = base[offset + i stride + j]; with bounds only i < rows,
  /// j < cols are read (the rest 0).
  Value load(mlir::RankedTensorType type, Value base, Value offset,
             int64_t stride, Value rows = {}, Value cols = {});
  /// Element (i, j) = base[offset + j stride + i rowStride] (stride 0:
  /// per-row values; with rowStride, column `offset` of a row-major buffer).
  Value loadTransposed(mlir::RankedTensorType type, Value base, Value offset,
                       int64_t stride, int64_t rowStride = 1);
  /// The inverse of load; `paired`: an accumulator's adjacent columns as
  /// one 8-byte store (offset, stride and cols even, the buffer aligned).
  void store(Value x, Value base, Value offset, int64_t stride, Value rows = {},
             Value cols = {}, bool paired = false, int64_t pieces = 0);
  /// acc + a b; split precision (hi + lo bf16 halves) when an operand is
  /// f32.
  Value dot(Value a, Value bOperand, Value acc);

  // FlashAttention's pieces on accumulators of one warp column, rows as
  // 8-column "row tiles" (accumulator(rows, 8): every column a row's value).
  /// An f32 tile of `type` with one value everywhere.
  Value splat(mlir::RankedTensorType type, double value);
  /// x's columns cycled to `type`'s width (x itself where it has it).
  Value repeat(Value x, mlir::RankedTensorType type);
  /// Each row's maximum of x, as a row tile.
  Value rowMax(Value x, mlir::RankedTensorType rowType);
  /// A running maximum as the shift of its row's weights: m, or 0 where m
  /// is -inf (nothing weighed yet: no NaN from -inf - -inf).
  Value shiftOf(Value m);
  /// Each row's denominator: the sum of its columns from `column` on
  /// (column e of [num | den | 0 ...]), as a row tile.
  Value denominators(Value acc, int64_t column, mlir::RankedTensorType rowType);
  /// y = num / den per row (den from column `column` on; 0 where den is 0).
  Value normalizeRows(Value acc, int64_t column,
                      mlir::RankedTensorType rowType);
};

/// Flat offsets of [b, t0 + j, head, 0] in a [B, T, heads, width] tensor,
/// for an index tile j (tokenOffset of the first token, then j rows on).
Value tokenOffsets(Tiles &t, Value batch, Value T, Value t0, Value j,
                   int64_t heads, Value head, int64_t width);

/// The f32 tile x of dims `dim` (an index tile) of a vector rotated by
/// `count` (f64: a uniform scalar, or a tile of x's layout when each
/// element has its own count), given each dim's pair partner's value
/// `partner`: SPEC's R(count) with the layout's pairs, the angle reduced
/// modulo 2 pi in f64 (to [0, 2 pi)), cos/sin in f32 (`afn`: the hardware's
/// approximations, which need no argument reduction on that range).
Value rotate(Tiles &t, const AttentionKernelSpec &spec, Value dim, Value x,
             Value partner, Value count);
/// Each dim's pair partner (itself where no rotation applies).
Value partnerDim(Tiles &t, const AttentionKernelSpec &spec, Value dim);

/// The inclusive prefix sums of x's elements 0 .. n - 1 (one per thread,
/// n <= threads): x goes to `buffer` [2 n], then a Hillis-Steele scan
/// between its two halves, log2 n rounds, each ending in a barrier. Returns
/// the offset of the half that holds the sums (every thread may read it).
int64_t inclusiveScan(Tiles &t, Value buffer, int64_t n, Value x);

/// The program's ids along the grid's x, y and z.
struct ProgramIds {
  Value x, y, z;
};
ProgramIds programIds(mlir::OpBuilder &b, mlir::Location loc);

/// The tile kernel `kernel` with the kernel ABI's arguments (`chunk` and
/// `formulation` as kernelArguments takes them) and the given workgroup
/// arrays; the builder is left at the start of its body.
mlir::gpu::GPUFuncOp createTileKernel(
    mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module,
    const AttentionKernelSpec &spec, runtime::KernelId kernel, int64_t threads,
    llvm::ArrayRef<int64_t> grid, llvm::ArrayRef<Type> workgroup,
    gpu_detail::KernelArguments &args, int64_t chunk = 0,
    runtime::Formulation formulation = runtime::Formulation::Chunked);

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_TILEKERNELS_H
