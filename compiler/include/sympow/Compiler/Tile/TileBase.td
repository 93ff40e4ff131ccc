//===- TileBase.td - The sympow_tile dialect and its bases --*- tablegen -*-===//
//
// What every file of sympow_tile ops shares: the dialect, the classes of its
// attributes and ops, the buffer type. TileOps.td (blocked tiles) and
// TileDotOps.td (matrix tiles, dot) each define their ops on top of it.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEBASE_TD
#define SYMPOW_COMPILER_TILE_TILEBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "sympow_tile";
  let cppNamespace = "::sympow::tile";
  let summary = "Tiles with explicit layouts: the kernel layer of sympow";
  let description = [{
    A tile kernel is a `gpu.func` marked with `sympow_tile.kernel` (its
    threads per block and its grid). Inside it, values are scalars, which
    every thread of a program holds alike (uniform), or tiles: ranked tensors
    with a layout encoding such as `#sympow_tile.blocked<threads = 256,
    per_thread = 1>`, which say which thread holds which element.
    Elementwise math on tiles is plain `arith` and `math` on tensors (and
    `sympow_tile.exp2_ftz`/`log2_ftz`, the SFU's base-2 exp and log with
    subnormals flushed, lowered per target); loops
    are `scf.for` with tiles as iteration arguments; global memory is read
    and written with `sympow_tile.load`/`store` from a `memref<?xT>` base, an
    offsets tile and a mask tile. `--sympow-convert-tile-to-gpu` lowers a
    tile kernel to a plain kernel over thread ids. See docs/TileIR.md.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// `sympow_tile.kernel`: marks a gpu.func as a tile kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("sympow_tile.kernel");
    }
  }];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

/// A buffer: the kernel ABI's memref<?xT> (or a static 1-D workgroup buffer)
/// addressed with flat offsets.
def Tile_Buffer : MemRefRankOf<[AnyType], [1]>;

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // SYMPOW_COMPILER_TILE_TILEBASE_TD
