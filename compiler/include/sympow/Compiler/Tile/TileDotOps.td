//===- TileDotOps.td - Matrix tiles and the dot -------------*- tablegen -*-===//
//
// 2-D tiles in the mma layouts (TileMatrixAttrs.td): a tile-level matrix
// multiply and the loads and stores that move matrix tiles between buffers
// (global or workgroup memory) and registers. docs/TileIR.md, "Matrix
// tiles".
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEDOTOPS_TD
#define SYMPOW_COMPILER_TILE_TILEDOTOPS_TD

include "sympow/Compiler/Tile/TileBase.td"
include "sympow/Compiler/Tile/TileMatrixAttrs.td"

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + a * b on tensor cores";
  let description = [{
    The M x N accumulator (f32, `#sympow_tile.mma`) plus the product of the
    M x K tile `a` (`dot_operand<operand = 0>`) and the K x N tile `b`
    (`dot_operand<operand = 1>`) of the same parent layout. With bf16 or
    f16 operands (`precision = native`, the default) products are exact and
    sums are in f32, as mma.sync computes them. With `precision =
    split_bf16` the operands are f32 and each is split into hi = bf16(x) and
    lo = bf16(x - hi); the dot adds lo_a hi_b + hi_a lo_b + hi_a hi_b (about
    16 significant bits per operand, f32 accuracy for well-scaled data).
    One operand may be bf16 instead: it is exact as it is (lo = 0), so the
    dot adds lo_a b + hi_a b (or a lo_b + a hi_b), two products.
    The split is a rewrite on tiles before lowering, so every kernel gets it
    from one pattern.

    ```mlir
    %c1 = sympow_tile.dot %a, %b, %c0
        : tensor<64x32xbf16, #A>, tensor<32x64xbf16, #B> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins Tile_OperandTile:$a, Tile_OperandTile:$b,
                       Tile_AccumulatorTile:$acc,
                       DefaultValuedAttr<Tile_DotPrecisionAttr,
                           "::sympow::tile::DotPrecision::native">:$precision);
  let results = (outs Tile_AccumulatorTile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` `=` $precision^)? attr-dict
    `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_MatrixLoadOp : Tile_Op<"matrix_load", [AttrSizedOperandSegments]> {
  let summary = "Loads a matrix tile: element (i, j) = base[offset + i stride + j]";
  let description = [{
    Element (i, j) of the result is `base[offset + i * stride + j]`, or
    `base[offset + j * stride + i]` when `transposed` (the buffer holds the
    tile's transpose). With `bounds(rows, cols)` only the elements with i <
    rows and j < cols are read and the others are 0 (edge tiles; padding a
    dot with zeros). `stride 0` broadcasts: every row reads the same
    `base[offset + j]` (per-column values, e.g. a key's gate), or with
    `transposed` every column the same `base[offset + i]` (per-row values,
    e.g. a query's gate), in the tile's own layout for elementwise math.
    `row_stride r` (with `transposed` only) steps rows by r instead of 1:
    element (i, j) = `base[offset + j * stride + i * r]`, so that `stride 0
    transposed row_stride r` reads column `offset` of a row-major buffer
    with rows of r elements as per-row values. The layout decides how the
    thread's elements are read:
    a 16-bit dot operand from workgroup memory with rows of a multiple of
    16 bytes, no bounds and a positive stride is read with ldmatrix (x4 for
    A, x2 for B,
    `.trans` as the storage order needs); `offset` must then be a multiple
    of 8 elements. Anything else is read element by element.

    ```mlir
    %a = sympow_tile.matrix_load %smem[%c0] stride 40
        : memref<2560xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #A>
    %s = sympow_tile.matrix_load %S[%at] stride 64 bounds(%rows, %c64)
        : memref<?xf32> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead]>:$base, Index:$offset,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$stride,
                       UnitAttr:$transposed,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>,
                                         "1">:$row_stride,
                       Optional<Index>:$rows, Optional<Index>:$cols);
  let results = (outs Tile_MatrixTile:$result);
  let assemblyFormat = [{
    $base `[` $offset `]` `stride` $stride (`transposed` $transposed^)?
    (`row_stride` $row_stride^)?
    (`bounds` `(` $rows^ `,` $cols `)`)? attr-dict
    `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_MatrixStoreOp : Tile_Op<"matrix_store", [AttrSizedOperandSegments]> {
  let summary = "Stores a matrix tile: base[offset + i stride + j] = element (i, j)";
  let description = [{
    Writes element (i, j) of `value` to `base[offset + i * stride + j]`
    (`base[offset + j * stride + i]` when `transposed`), only for i < rows
    and j < cols with `bounds(rows, cols)`. Elements that several threads
    hold (dot operands are replicated over warps) are written by each of
    them with the same value. `paired` (accumulators, not transposed) is the
    kernel's promise that `offset`, `stride` and the column bound are even
    and the buffer aligned to two elements: each thread's two adjacent
    columns go as one store (8 bytes for f32, 4 for bf16), behind one
    bounds test. `pieces p` (accumulators, not transposed) stores the
    columns in 8-column pieces p elements apart: element (i, j) goes to
    `base[offset + i * stride + (j / 8) * p + j % 8]`, so that each piece's
    rows are one run (with `stride 8`) that a bulk copy can move whole.

    ```mlir
    sympow_tile.matrix_store %c, %out[%at] stride 64
        : tensor<64x64xf32, #mma>, memref<?xf32>
    // [piece][row][8]: piece j / 8 of 64 rows at (j / 8) 512.
    sympow_tile.matrix_store %c, %out[%at] stride 8 pieces 512 paired
        : tensor<64x64xf32, #mma>, memref<?xf32>
    ```
  }];
  let arguments = (ins Tile_MatrixTile:$value,
                       Arg<Tile_Buffer, "", [MemWrite]>:$base, Index:$offset,
                       ConfinedAttr<I64Attr, [IntPositive]>:$stride,
                       UnitAttr:$transposed, Optional<Index>:$rows,
                       Optional<Index>:$cols, UnitAttr:$paired,
                       DefaultValuedAttr<ConfinedAttr<I64Attr,
                           [IntNonNegative]>, "0">:$pieces);
  let assemblyFormat = [{
    $value `,` $base `[` $offset `]` `stride` $stride
    (`transposed` $transposed^)? (`bounds` `(` $rows^ `,` $cols `)`)?
    (`pieces` $pieces^)? (`paired` $paired^)? attr-dict `:` type($value) `,`
    type($base)
  }];
  let hasVerifier = 1;
}

def Tile_RowReduceOp : Tile_Op<"row_reduce", [Pure,
    AllTypesMatch<["source", "result"]>]> {
  let summary = "Every element of an accumulator gets its row's sum or maximum";
  let description = [{
    Element (i, j) of the result is the sum (`sum`) or the maximum (`max`)
    of row i of `source` over all its columns: per-row values (a softmax's
    running maximum, a row's normaliser) in the accumulator's own layout,
    ready for elementwise math with it. Within a warp the four lanes that
    share a row combine by xor shuffles; with more than one warp column
    (`warps = [WM, WN]`, WN > 1) the warps of a row meet in workgroup
    memory between barriers, so the op must then be reached by every thread
    of the program (uniform control flow). The order of a sum's additions
    is unspecified.

    ```mlir
    %m = sympow_tile.row_reduce max %scores : tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Tile_AccumulatorTile:$source);
  let results = (outs Tile_AccumulatorTile:$result);
  let assemblyFormat = "$kind $source attr-dict `:` type($result)";
}

def Tile_MatrixRangeOp : Tile_Op<"matrix_range", [Pure]> {
  let summary = "The row (dim 0) or column (dim 1) index of every element";
  let description = [{
    Element (i, j) of the result is i (`dim = 0`) or j (`dim = 1`), in the
    layout of the result: masks of matrix tiles (a causal edge j <= i, rows
    past a sequence's end) by elementwise comparisons, as `range` serves
    blocked tiles. Index or i32 elements: i32 masks take one register per
    element where index (64-bit on the GPU) takes two.

    ```mlir
    %i = sympow_tile.matrix_range 0 : tensor<64x64xindex, #mma>
    %j = sympow_tile.matrix_range 1 : tensor<64x64xindex, #mma>
    %causal = arith.cmpi uge, %i, %j : tensor<64x64xindex, #mma>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>,
                                              IntMaxValue<1>]>:$dim);
  let results = (outs Tile_MatrixTile:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ToOperandOp : Tile_Op<"to_operand", [Pure]> {
  let summary = "An accumulator-layout tile as the A operand of a dot, in registers";
  let description = [{
    The M x K tile `source` in `#sympow_tile.mma<warps = [WM, 1]>` as the A
    operand (`dot_operand<operand = 0>`) of a dot whose layout is
    `mma<warps = [WM, 1]>` too: FlashAttention-2's reuse of P = exp(S - m)
    for P V without a trip through workgroup memory. In m16n8k16 the
    accumulator fragments of two adjacent 8-column pieces are exactly the A
    fragment of one 16-column k step, so each thread keeps its own values;
    one warp column (WN = 1) gives each warp whole rows, as the A operand
    needs. Element types agree (16-bit for a native dot: truncate first).

    The result may be a slice of the source's columns: `first_column` (a
    multiple of 16) and the result's width (a multiple of 16) pick them, so
    that a warpgroup MMA, which takes 16 columns of A, can walk P in k
    steps. No data moves either way.

    ```mlir
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xbf16, #mma>
    %a = sympow_tile.to_operand %p16 : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #A>
    %k1 = sympow_tile.to_operand %p16 {first_column = 16 : i64}
        : tensor<64x64xbf16, #mma> -> tensor<64x16xbf16, #A>
    ```
  }];
  let arguments = (ins Tile_MatrixTile:$source,
                       DefaultValuedAttr<I64Attr, "0">:$first_column);
  let results = (outs Tile_MatrixTile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_FragmentsOp : Tile_Op<"fragments", [Pure]> {
  let summary = "A matrix tile from each thread's elements of blocked tiles";
  let description = [{
    The matrix tile whose thread T holds, as the elements of its fragment
    vector in order (TileMatrixAttrs.td gives the order per layout), T's
    elements of the operands one after the other: operand 0's R0 elements,
    then operand 1's, and so on. The operands are blocked tiles over the
    result layout's threads (in a `warpgroups` region, its threads), of the
    result's element type, R0 + R1 + ... the fragment's length (an
    accumulator's M N / threads elements; an operand's those of its warp's
    rows for A, columns for B, which the other warps of that warp row or
    column hold as well).

    For kernels that compute a dot operand where its thread holds it, from
    staged inputs by per-thread addresses (chunk_state_pass's Phi^T, built
    as the A fragments of a register-A warpgroup MMA): the address math of
    blocked tiles, the operand's layout for the MMA. No data moves.

    ```mlir
    // A (64 x 16, warps [4, 1]) is vector<1x1x4x2xbf16> a thread: pairs of
    // adjacent columns at rows l / 4, l / 4 + 8, then 8 columns on.
    %a = sympow_tile.fragments %r0, %r8, %r0k8, %r8k8
        : tensor<256xbf16, #blocked2>, tensor<256xbf16, #blocked2>,
          tensor<256xbf16, #blocked2>, tensor<256xbf16, #blocked2>
        -> tensor<64x16xbf16, #A>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$parts);
  let results = (outs Tile_MatrixTile:$result);
  let assemblyFormat = [{
    $parts attr-dict `:` type($parts) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_RepeatColumnsOp : Tile_Op<"repeat_columns", [Pure]> {
  let summary = "An accumulator's columns cycled to another width";
  let description = [{
    Element (i, j) of the result is element (i, j mod N) of `source`, N its
    column count: its first columns when the result is narrower, its columns
    repeated when wider. Per-row values (what `row_reduce` yields) move so
    between tiles of different widths: a running maximum kept 8 columns
    wide scales a 64-column accumulator and shifts 32-column scores. With
    one warp column (`mma<warps = [WM, 1]>`, required) each thread already
    holds the elements it needs: register moves, no data between threads.
    Both tiles have the same rows and layout.

    ```mlir
    %m8 = sympow_tile.repeat_columns %m : tensor<64x32xf32, #mma> -> tensor<64x8xf32, #mma>
    %m72 = sympow_tile.repeat_columns %m8 : tensor<64x8xf32, #mma> -> tensor<64x72xf32, #mma>
    ```
  }];
  let arguments = (ins Tile_AccumulatorTile:$source);
  let results = (outs Tile_AccumulatorTile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

#endif // SYMPOW_COMPILER_TILE_TILEDOTOPS_TD
