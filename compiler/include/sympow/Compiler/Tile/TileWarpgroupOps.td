//===- TileWarpgroupOps.td - Warpgroup MMA (sm_90a) -------*- tablegen -*-===//
//
// The thread-level ops of Hopper's warpgroup MMA (PTX wgmma.*): a 64 x N x 16
// product that four warps issue together, its operands read from workgroup
// memory through 64-bit matrix descriptors. They outlive the tile lowering,
// as exp2_ftz does, and each target lowers them: --sympow-lower-warpgroup-mma
// to NVVM, the emulator to its warpgroup collective. Upstream's
// nvgpu.warpgroup.* needs a TMA tensor map for its descriptors, which
// operands staged by cp.async have not (docs/design/wgmma.md).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEWARPGROUPOPS_TD
#define SYMPOW_COMPILER_TILE_TILEWARPGROUPOPS_TD

include "sympow/Compiler/Tile/TileBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

/// A thread's part of a 64 x N accumulator (N / 2 floats, any shape), or
/// in a tile kernel the whole accumulator tile (mma layout).
def Tile_WarpgroupAccumulator : AnyTypeOf<[VectorOfAnyRankOf<[F32]>,
    RankedTensorOf<[F32]>], "f32 accumulators: a thread's vector or a tile">;

def Tile_WarpgroupDescriptorOp : Tile_Op<"warpgroup_descriptor", [Pure]> {
  let summary = "The matrix descriptor of a wgmma operand in workgroup memory";
  let description = [{
    The 64-bit descriptor (PTX "Matrix Descriptor Format") of the matrix
    that starts at `buffer[offset]`: its address in the workgroup window,
    the leading and stride byte offsets, and the swizzle (0 for none, or 32,
    64, 128 bytes). Which of the matrix's dimensions the offsets step
    depends on whether the operand is K-major or MN-major (its transpose
    bit in `warpgroup_mma`); docs/design/wgmma.md, §2, gives the layouts.
    The start must be a multiple of 16 bytes, and a swizzled matrix starts
    on a multiple of the pattern (8 rows of the swizzle) so that its base
    offset is 0.

    The descriptor plus n (`arith.addi` of an i64) describes the same
    matrix 16 n bytes on: the start address is the low 14 bits, in 16-byte
    units, and workgroup addresses stay below 2^18 bytes, so the add never
    carries out of it. A kernel with a buffer per step advances its
    loop-invariant descriptor so; the lowerings that need the op's fields
    find it behind such adds (`behind`).

    ```mlir
    // A: 64 rows of 16 bf16 as core matrices of 8 rows x 16 bytes, the
    // second 8 columns 1024 bytes after the first, rows 8 apart 128 bytes.
    %a = sympow_tile.warpgroup_descriptor %q[%c0] swizzle 0 leading 1024
        stride 128 : memref<1024xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Tile_Buffer:$buffer, Index:$offset,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$swizzle,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$leading,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$stride);
  let results = (outs I64:$descriptor);
  let assemblyFormat = [{
    $buffer `[` $offset `]` `swizzle` $swizzle `leading` $leading
    `stride` $stride attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The descriptor of the matrix at `windowAddress` (i64, the byte
    /// address of buffer[offset] in the workgroup window), built from this
    /// op's fields: what each target's lowering emits once it knows the
    /// address.
    ::mlir::Value encode(::mlir::OpBuilder &b, ::mlir::Value windowAddress);
    /// The swizzle as the descriptor's layout field: 0 none, 1 128 B,
    /// 2 64 B, 3 32 B.
    int64_t getLayoutCode();
    /// The op behind `descriptor`, which may be advanced by adds (above),
    /// or null; `sixteens` receives what the adds add (i64, in 16 bytes).
    static WarpgroupDescriptorOp
    behind(::mlir::Value descriptor,
           ::llvm::SmallVectorImpl<::mlir::Value> &sixteens);
  }];
}

def Tile_WarpgroupFenceOp : Tile_Op<"warpgroup_fence"> {
  let summary = "Orders register accesses before the warpgroup's next wgmma";
  let description = [{
    PTX `wgmma.fence.sync.aligned`: every thread of the warpgroup runs it
    before its first `warpgroup_mma`, and again between reading or writing
    an accumulator (after `warpgroup_wait`) and the next MMA on it. Chained
    MMAs on the same accumulator need no fence between them.

    ```mlir
    sympow_tile.warpgroup_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncProxyFenceOp : Tile_Op<"async_proxy_fence"> {
  let summary = "Makes this thread's workgroup stores visible to wgmma";
  let description = [{
    PTX `fence.proxy.async.shared::cta`: wgmma reads workgroup memory
    through the async proxy, which does not see ordinary stores (and
    cp.async copies) until the thread that made them fences. The pattern
    is: store, this fence, a barrier, `warpgroup_fence`, `warpgroup_mma`.
    The emulator reports an MMA that reads a byte whose writer has not
    fenced since writing it.

    ```mlir
    sympow_tile.async_proxy_fence
    gpu.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

/// A from registers: a thread's 4 x 32 bits of the 64 x 16 A, mma.sync's
/// m16n8k16 A fragment of its warp's 16 rows (8 elements, any shape), or
/// in a tile kernel the A tile (dot_operand 0).
def Tile_WarpgroupRegisterA : AnyTypeOf<[VectorOfAnyRankOf<[BF16, F16]>,
    RankedTensorOf<[BF16, F16]>], "16-bit A: a thread's vector or a tile">;

def Tile_WarpgroupMmaOp : Tile_Op<"warpgroup_mma",
    [AllTypesMatch<["acc", "result"]>]> {
  let summary = "D = A B (+ C): one wgmma.mma_async, m64nNk16, f32 "
                "accumulation";
  let description = [{
    The four warps of a warpgroup (threads 128g .. 128g + 127) multiply
    A (64 x 16) and B (16 x N) of `input_type` (bf16 or f16), both read
    from workgroup memory through the descriptors `a` and `b`, and add
    `acc` (unless `accumulate = false`). Each thread holds N / 2 floats of
    the 64 x N result (N a multiple of 8 up to 256): element i of thread
    T = 32 w + l is row 16 w + l / 4 + 8 ((i / 2) % 2), column
    8 (i / 4) + 2 (l % 4) + i % 2, mma.sync's m16n8 accumulator per warp
    and 8 columns.

    In a tile kernel `acc` may be a tile of `#sympow_tile.mma<warps =
    [4 g, 1]>` with 16 rows per warp (64 per warpgroup, each warpgroup its
    own rows) and A a tile of its `dot_operand<operand = 0>` with 16
    columns: the tile lowering hands the op each thread's fragments, which
    are the wgmma fragments. Or `acc` is a 64-row tile of `mma<warps =
    [4, g], column_major = true>`: warpgroup j holds column block j, all of
    them the same rows, so they share A; B (from a `warpgroup_descriptor`)
    is the whole 16 x (g N) operand, and the tile lowering points each
    warpgroup's descriptor at its N columns.

    A is K-major (each row's 16 elements in core matrices along K) unless
    `transpose_a`, B is K-major (each column's) unless `transpose_b`. A may
    instead come from registers, a `vector<4x2xbf16>` (or f16) per thread
    laid out as mma.sync's m16n8k16 A fragment of the warp's 16 rows
    (PTX's wgmma A register fragment); it is never transposed.

    The MMA is asynchronous: its result may feed another `warpgroup_mma`
    (chained on the same accumulator) or `warpgroup_wait`, which returns it
    readable once the MMA's group has completed. Any other use before then
    reads undefined values (the emulator's are NaN). Workgroup memory the
    MMA reads must not be written before that wait either.

    ```mlir
    sympow_tile.warpgroup_fence
    %d = sympow_tile.warpgroup_mma %a, %b, %zero {accumulate = false,
        transpose_b} : i64, bf16, vector<36xf32>
    sympow_tile.warpgroup_commit
    %r = sympow_tile.warpgroup_wait 0, %d : vector<36xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I64, Tile_WarpgroupRegisterA]>:$a, I64:$b,
                       Tile_WarpgroupAccumulator:$acc,
                       TypeAttr:$inputType, UnitAttr:$transposeA,
                       UnitAttr:$transposeB,
                       DefaultValuedAttr<BoolAttr, "true">:$accumulate);
  let results = (outs Tile_WarpgroupAccumulator:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` $inputType `,` type($acc)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// N, the columns of each warpgroup's product: the tile's (over its
    /// warp columns), or twice the thread's accumulators.
    int64_t getN();
    /// Whether A comes from registers (else through its descriptor).
    bool hasRegisterA() { return !getA().getType().isInteger(64); }
  }];
}

def Tile_WarpgroupCommitOp : Tile_Op<"warpgroup_commit"> {
  let summary = "Closes a group of this warpgroup's MMAs";
  let description = [{
    PTX `wgmma.commit_group.sync.aligned`: the `warpgroup_mma`s issued
    since the last commit form one group, which `warpgroup_wait` waits for.

    ```mlir
    sympow_tile.warpgroup_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupWaitOp : Tile_Op<"warpgroup_wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Waits for all but the newest groups of MMAs; returns their "
                "results readable";
  let description = [{
    PTX `wgmma.wait_group.sync.aligned pending`: returns once at most
    `pending` of the newest committed groups are still running. Its
    operands are MMA results; its results are the same values, readable
    from here on (the data dependence keeps a compiler from reading the
    registers before the wait). An operand whose MMA is in a group still
    allowed to run is an error on the emulator.

    ```mlir
    %r0, %r1 = sympow_tile.warpgroup_wait 0, %d0, %d1
        : vector<36xf32>, vector<36xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                       Variadic<Tile_WarpgroupAccumulator>:$accs);
  let results = (outs Variadic<Tile_WarpgroupAccumulator>:$results);
  let assemblyFormat = [{
    $pending (`,` $accs^ `:` type($accs))? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // SYMPOW_COMPILER_TILE_TILEWARPGROUPOPS_TD
