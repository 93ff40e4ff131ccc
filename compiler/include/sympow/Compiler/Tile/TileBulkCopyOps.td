//===- TileBulkCopyOps.td - mbarriers and bulk copies -----*- tablegen -*-===//
//
// Workgroup-memory barriers with phases and transaction counts (PTX
// mbarrier) and the bulk copies that complete on them (PTX cp.async.bulk,
// sm_90): a whole run of global memory lands in workgroup memory without
// passing through registers, issued by one thread. In a tile kernel each op
// takes a mask tile (which threads run it; the copies' starts and sizes
// are tiles too); the tile lowering leaves the same ops on each thread's
// scalars, which each target lowers (--sympow-lower-bulk-copies, the
// emulator's own). docs/TileIR.md, "Bulk copies and mbarriers".
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEBULKCOPYOPS_TD
#define SYMPOW_COMPILER_TILE_TILEBULKCOPYOPS_TD

include "sympow/Compiler/Tile/TileBase.td"

/// A thread's index, or a tile of them (one per thread).
def Tile_IndexOrTile : AnyTypeOf<[Index, RankedTensorOf<[Index]>],
    "an index, or a tile of one index per thread">;
def Tile_OptionalMask : Optional<RankedTensorOf<[I1]>>;

def Tile_MbarrierInitOp : Tile_Op<"mbarrier_init"> {
  let summary = "Initializes an mbarrier: phase 0, `count` arrivals expected";
  let description = [{
    PTX `mbarrier.init.shared::cta.b64`: the 8-byte barrier at
    `barriers[index]` (a workgroup `memref<N x i64>`) starts its phase 0,
    which completes once `count` arrivals (`mbarrier_arrive`) have been made
    and every transaction byte they announced has landed. One thread
    initializes (in a tile kernel: where `mask` holds, which must be one
    thread); a `gpu.barrier` must follow before any other thread uses it.

    ```mlir
    sympow_tile.mbarrier_init %bars[%c0] count 18 mask %first
        : memref<2xi64, #gpu.address_space<workgroup>>, tensor<128xi1, #b1>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemWrite]>:$barriers,
                       Index:$index,
                       ConfinedAttr<I64Attr, [IntPositive]>:$count,
                       Tile_OptionalMask:$mask);
  let assemblyFormat = [{
    $barriers `[` $index `]` `count` $count (`mask` $mask^)? attr-dict
    `:` type($barriers) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive",
    [AttrSizedOperandSegments]> {
  let summary = "Arrives on an mbarrier's current phase, announcing bytes "
                "of bulk copies";
  let description = [{
    PTX `mbarrier.arrive.expect_tx.shared::cta.b64` (or `mbarrier.arrive`
    without `expect_tx`): the thread's arrival on the current phase of
    `barriers[index]`, and `expect_tx` bytes that bulk copies on it will
    bring (its transaction count). The phase completes when every expected
    arrival came and as many bytes landed as were announced: a thread that
    issues bulk copies arrives after them with their bytes (the copies may
    land first: the count goes below zero until the arrival announces
    them). Release semantics: the thread's earlier stores are visible to
    the threads that wait for the phase.

    ```mlir
    sympow_tile.mbarrier_arrive %bars[%b] expect_tx %bytes mask %issues
        : memref<2xi64, #gpu.address_space<workgroup>>, tensor<128xi1, #b1>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Optional<Index>:$expectTx,
                       Tile_OptionalMask:$mask);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`expect_tx` $expectTx^)? (`mask` $mask^)?
    attr-dict `:` type($barriers) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "Waits until the phase of an mbarrier with parity `parity` "
                "has completed";
  let description = [{
    PTX `mbarrier.try_wait.parity` in a loop (`test_wait.parity` before
    sm_90): returns once the current phase's parity differs from `parity`
    (0 or 1), i.e. the last phase with that parity completed. A barrier
    used for the n-th time waits with parity n % 2; waiting with the
    other parity returns at once (on the phase before), the classic
    mistake the emulator reports when the thread then reads what the
    phase's copies bring. Acquire semantics: what the phase's arrivals
    released and its bulk copies wrote is visible to this thread.

    ```mlir
    sympow_tile.mbarrier_wait %bars[%b] parity %phase
        : memref<2xi64, #gpu.address_space<workgroup>>
    ```
  }];
  // A write too: a wait without results that only read would be dead code
  // to the canonicalizer, and no access may move above it.
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Index:$parity, Tile_OptionalMask:$mask);
  let assemblyFormat = [{
    $barriers `[` $index `]` `parity` $parity (`mask` $mask^)? attr-dict
    `:` type($barriers) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_BulkCopyOp : Tile_Op<"bulk_copy", [
    AllTypesMatch<["sourceStart", "destStart", "bytes"]>]> {
  let summary = "A thread copies a run of bytes from global to workgroup "
                "memory, completing on an mbarrier";
  let description = [{
    PTX `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`:
    `bytes` bytes from `source[sourceStart]` on land at
    `dest[destStart]` on, asynchronously, and count as transaction bytes of
    the current phase of `barriers[index]`. Both addresses and `bytes` are
    multiples of 16. Nothing may touch the destination until the phase
    completes (`mbarrier_wait`), nor may the copy be issued while other
    threads still read the destination (a barrier first). In a tile kernel
    the starts and sizes are tiles (one per thread) and `mask` says which
    threads issue; on a thread they are indices. Before sm_90 the issuing
    thread (in an `elected` region: warp 0's lanes together) copies the run
    in 16-byte `cp.async`s that arrive on the barrier when they land
    (`cp.async.mbarrier.arrive`, no net change of its arrival count), so
    the same kernel runs on both. `repeat n
    source_stride s dest_stride t` issues n such copies, the i-th i s
    elements further in the source and i t in the destination (each
    thread's copies from its own scalars: the pieces of a tile one thread
    moves, with no index math in the other threads).

    ```mlir
    sympow_tile.bulk_copy %state[%from], %rows[%to], bytes %n,
        %bars[%b] mask %issues
        : memref<?xbf16>, memref<4608xbf16, #gpu.address_space<workgroup>>,
          memref<2xi64, #gpu.address_space<workgroup>>, tensor<128xindex, #b1>,
          tensor<128xi1, #b1>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead]>:$source,
                       Tile_IndexOrTile:$sourceStart,
                       Arg<Tile_Buffer, "", [MemWrite]>:$dest,
                       Tile_IndexOrTile:$destStart,
                       Tile_IndexOrTile:$bytes,
                       Arg<Tile_Buffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Tile_OptionalMask:$mask,
                       DefaultValuedAttr<ConfinedAttr<I64Attr,
                           [IntPositive]>, "1">:$repeat,
                       DefaultValuedAttr<I64Attr, "0">:$sourceStride,
                       DefaultValuedAttr<I64Attr, "0">:$destStride);
  let assemblyFormat = [{
    $source `[` $sourceStart `]` `,` $dest `[` $destStart `]` `,` `bytes`
    $bytes `,` $barriers `[` $index `]` (`mask` $mask^)?
    (`repeat` $repeat^ `source_stride` $sourceStride `dest_stride`
    $destStride)? attr-dict
    `:` type($source) `,` type($dest) `,` type($barriers) `,`
    type($sourceStart) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// A thread-level op with `repeat` > 1 as an scf.for of single copies
    /// (in place, erasing this one): each target lowers those.
    void expandRepeats();
  }];
}

def Tile_ElectedOp : Tile_Op<"elected", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "Runs its body on one thread of the program";
  let description = [{
    The body runs once per program, on one thread: where bulk copies and
    their arrivals are issued by one thread. Inside are uniform scalars and
    thread-level ops (the mbarrier ops and `bulk_copy` without masks), no
    tiles. On sm_90a the thread is an elected lane of warp 0 (`if (warp ==
    0) if (elect.sync)`): from warp-uniform code ptxas issues each
    `cp.async.bulk` as one UBLKCP, where under `if (thread == 0)` it wraps
    each in a loop over the active lanes (docs/Performance.md, "Bulk copies
    for the chunk states"); before sm_90 it is warp 0, whose lanes share
    each bulk copy's 16-byte cp.asyncs while its mbarrier ops and stores
    run on lane 0 (one thread issued a chunk_output step's 576 cp.asyncs in
    turn), so that a body's arithmetic must be the same on every lane. The
    emulator runs it on thread 0 and counts its arithmetic as warp
    instructions (32 thread operations each), as warp 0 executes it.

    ```mlir
    sympow_tile.elected {
      sympow_tile.bulk_copy %src[%from], %rows[%to], bytes %n, %bars[%b]
          : memref<?xbf16>, memref<4608xbf16, #ws>, memref<2xi64, #ws>, index
      sympow_tile.mbarrier_arrive %bars[%b] expect_tx %n : memref<2xi64, #ws>
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins)>];
  let extraClassDeclaration = [{
    /// The attribute the emulator's lowering marks the scf.if it becomes
    /// with (its arithmetic counted 32 times).
    static constexpr ::llvm::StringLiteral getLoweredAttrName() {
      return ::llvm::StringLiteral("elected_thread");
    }
    /// Replaces this op by `scf.if condition` (at b's insertion point)
    /// around its body; returns the if.
    ::mlir::Operation *inlineUnder(::mlir::OpBuilder &b,
                                   ::mlir::Value condition);
  }];
}

#endif // SYMPOW_COMPILER_TILE_TILEBULKCOPYOPS_TD
