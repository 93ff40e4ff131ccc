//===- TileMatrixAttrs.td - Layouts of 2-D matrix tiles -----*- tablegen -*-===//
//
// The layouts of the tiles a tensor-core matrix multiply works on
// (docs/TileIR.md, "Matrix tiles"): the accumulator layout of mma.sync
// m16n8k16 with warps arranged over the tile, and the layouts of its two
// operands. Triton's NvidiaMma (version 2) and DotOperand encodings are the
// model. TileOps.td includes this file so that every attribute of the dialect
// is generated together (the dialect has one attribute parser); the ops on
// these tiles are in TileDotOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEMATRIXATTRS_TD
#define SYMPOW_COMPILER_TILE_TILEMATRIXATTRS_TD

include "sympow/Compiler/Tile/TileBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_MmaAttr : Tile_Attr<"Mma", "mma",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A 2-D accumulator tile in mma.sync m16n8k16 fragments";
  let description = [{
    An M x N tile (f32) spread over `warps = [WM, WN]` warps, WM·WN·32
    threads: warp w (`w = tid / 32`) holds the block of rows
    `[(w / WN) M / WM, ...)` and columns `[(w % WN) N / WN, ...)`, cut into
    16 x 8 pieces, the accumulators of mma.sync m16n8k16. In each piece lane
    l holds rows `l / 4` and `l / 4 + 8`, columns `2 (l % 4)` and
    `2 (l % 4) + 1` (PTX ISA, "Matrix fragments for mma.m16n8k16"). A thread's
    elements are a `vector<RM x RN x 2 x 2 x f32>`, RM = M / (16 WM), RN =
    N / (8 WN): piece (i, j), row half, column.

    With `column_major = true` the warps go down the columns first: warp w
    holds row block `w % WM` and column block `w / WM`. With WM = 4 the four
    warps of each warpgroup then hold 64 rows of one column block: the
    accumulator of its warpgroup MMA (TileWarpgroupOps.td).

    ```mlir
    tensor<64x64xf32, #sympow_tile.mma<warps = [2, 2]>>
    tensor<64x64xf32, #sympow_tile.mma<warps = [4, 2], column_major = true>>
    ```
  }];
  let parameters = (ins "int64_t":$warpsM, "int64_t":$warpsN,
                        DefaultValuedParameter<"bool", "false">:$columnMajor);
  let assemblyFormat = [{
    `<` `warps` `=` `[` $warpsM `,` $warpsN `]`
    (`,` `column_major` `=` $columnMajor^)? `>`
  }];
  let builders = [
    AttrBuilder<(ins "int64_t":$warpsM, "int64_t":$warpsN,
                     CArg<"bool", "false">:$columnMajor), [{
      return $_get($_ctxt, warpsM, warpsN, columnMajor);
    }]>];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The threads of a block that holds a tile in this layout.
    int64_t getThreads() const { return 32 * getWarpsM() * getWarpsN(); }
    /// The row block and column block of warp `warp` (plain integers or
    /// index values: `Ops` gives div and rem by constants).
    template <typename V, typename Ops>
    V warpRow(Ops &o, V warp) const {
      return getColumnMajor() ? o.rem(warp, getWarpsM())
                              : o.div(warp, getWarpsN());
    }
    template <typename V, typename Ops>
    V warpColumn(Ops &o, V warp) const {
      return getColumnMajor() ? o.div(warp, getWarpsM())
                              : o.rem(warp, getWarpsN());
    }
  }];
}

def Tile_DotOperandAttr : Tile_Attr<"DotOperand", "dot_operand",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "An operand of a dot whose result is in the `parent` layout";
  let description = [{
    `operand = 0`: A, an M x K tile; `operand = 1`: B, a K x N tile of a dot
    whose M x N result is in `parent` (`#sympow_tile.mma`). Each warp holds
    what its mma.sync instructions read: A's rows of the warp's row block
    (every K), as m16n8k16 A fragments, `vector<RM x RK x 4 x 2 x T>`
    (RK = K / 16); B's columns of the warp's column block, as B fragments,
    `vector<RK x RN x 2 x 2 x T>`. Warps of one warp row (A) or column (B)
    hold the same elements. T is bf16 or f16, or f32 for a dot that splits
    it (`precision = split_bf16`).

    ```mlir
    tensor<64x32xbf16, #sympow_tile.dot_operand<operand = 0,
                          parent = #sympow_tile.mma<warps = [2, 2]>>>
    ```
  }];
  let parameters = (ins "unsigned":$operand, "MmaAttr":$parent);
  let assemblyFormat =
      "`<` `operand` `=` $operand `,` `parent` `=` qualified($parent) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getThreads() const { return getParent().getThreads(); }
  }];
}

def Tile_DotPrecision : I32EnumAttr<"DotPrecision",
    "How a dot computes its products", [
      I32EnumAttrCase<"native", 0>,
      I32EnumAttrCase<"split_bf16", 1>]> {
  let cppNamespace = "::sympow::tile";
  let genSpecializedAttr = 0;
}

def Tile_DotPrecisionAttr : EnumAttr<Tile_Dialect, Tile_DotPrecision,
                                     "precision"> {
  let summary = "native: operands as they are; split_bf16: f32 operands as "
                "hi + lo bf16 pairs, three products (two with one bf16 "
                "operand)";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind",
    "How a reduction combines its elements", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>]> {
  let cppNamespace = "::sympow::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce"> {
  let summary = "sum: addition; max: the larger (NaN wins, as arith.maximumf)";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

class Tile_EncodingIs<string attr> : CPred<
    "::llvm::isa_and_nonnull<::sympow::tile::" # attr # ">("
    "::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">;

class Tile_MatrixTileOf<list<Type> allowed, Pred layout, string what>
    : Type<And<[RankedTensorOf<allowed>.predicate, layout]>, what,
           "::mlir::RankedTensorType">;

def Tile_AccumulatorTile : Tile_MatrixTileOf<[F32],
    Tile_EncodingIs<"MmaAttr">, "f32 tile in an mma layout">;
def Tile_OperandTile : Tile_MatrixTileOf<[BF16, F16, F32],
    Tile_EncodingIs<"DotOperandAttr">,
    "bf16, f16 or f32 tile in a dot_operand layout">;
def Tile_MatrixTile : Tile_MatrixTileOf<[AnyType],
    Or<[Tile_EncodingIs<"MmaAttr">, Tile_EncodingIs<"DotOperandAttr">]>,
    "tile in an mma or dot_operand layout">;

#endif // SYMPOW_COMPILER_TILE_TILEMATRIXATTRS_TD
