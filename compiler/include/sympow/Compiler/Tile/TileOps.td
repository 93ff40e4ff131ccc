//===- TileOps.td - The sympow_tile dialect ----------------*- tablegen -*-===//
//
// The tile level of the kernel compiler (docs/TileIR.md): a kernel is a
// gpu.func whose body computes on whole tiles, ranked tensors whose encoding
// says how their elements are spread over the block's threads, and asks for
// its program ids instead of thread ids. `--sympow-convert-tile-to-gpu`
// distributes the tiles over the threads.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_TILEOPS_TD
#define SYMPOW_COMPILER_TILE_TILEOPS_TD

include "sympow/Compiler/Tile/TileBase.td"
include "sympow/Compiler/Tile/TileMatrixAttrs.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Tile_BlockedAttr : Tile_Attr<"Blocked", "blocked",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A 1-D tile spread over the threads in contiguous runs";
  let description = [{
    Element `i` of a `tensor<Nx T, #sympow_tile.blocked<threads = P,
    per_thread = R>>` lives in thread `i / R` of the program, in its slot
    `i % R`; N must be `P * R`. Each thread holds its R elements as a scalar
    (R = 1) or a `vector<R x T>`, so neighbouring threads touch neighbouring
    addresses (coalesced) and R > 1 gives each thread a contiguous run (wide
    accesses). Later layouts (mma fragments, shared-memory swizzles) are
    further encodings of the same kind.
  }];
  let parameters = (ins "int64_t":$threads, "int64_t":$perThread);
  let assemblyFormat =
      "`<` `threads` `=` $threads `,` `per_thread` `=` $perThread `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements of a tile in this layout: threads * per_thread.
    int64_t getSize() const { return getThreads() * getPerThread(); }
  }];
}

def Tile_KernelAttr : Tile_Attr<"Kernel", "kernel"> {
  let summary = "A tile kernel's threads per block and grid";
  let description = [{
    On a `gpu.func` as `sympow_tile.kernel`. `threads` is the block size;
    every tile in the kernel is spread over that many threads. `grid` gives
    the programs along x, y, z, each a constant, `cdiv(T, n)` (one program per
    n tokens) or `B` (one per sequence), the forms the runtime's launch
    metadata can express (docs/KernelABI.md): x is any of the three, y a
    constant, z is `B`.

    ```mlir
    gpu.func @scan(...) kernel attributes {sympow_tile.kernel =
        #sympow_tile.kernel<threads = 256, grid = [529, 8, B]>}
    ```
  }];
  let parameters = (ins "int64_t":$threads,
                        ArrayRefParameter<"int64_t">:$grid);
  let assemblyFormat =
      "`<` `threads` `=` $threads `,` `grid` `=` `[` custom<Grid>($grid) `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// How `grid` stores a dimension: n > 0 programs, 0 for B, -n for
    /// cdiv(T, n).
    static constexpr int64_t kBatch = 0;
    static int64_t perTokens(int64_t n) { return -n; }
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_IsTilePred : CPred<
    "::llvm::isa_and_nonnull<::sympow::tile::BlockedAttr>("
    "::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">;

class Tile_TileOf<list<Type> allowed, string what>
    : Type<And<[RankedTensorOf<allowed>.predicate, Tile_IsTilePred]>,
           "tile of " # what, "::mlir::RankedTensorType">;

def Tile_AnyTile : Tile_TileOf<[AnyType], "any type">;
def Tile_IndexTile : Tile_TileOf<[Index], "index">;
def Tile_MaskTile : Tile_TileOf<[I1], "i1">;

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "This program's index along a grid axis";
  let description = [{
    The index of the running program along `axis` (0, 1, 2: x, y, z of the
    kernel's grid), a uniform scalar. Programs are thread blocks.

    ```mlir
    %h = sympow_tile.program_id 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr,
                       [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
  let builders = [OpBuilder<(ins "uint32_t":$axis), [{
    build($_builder, $_state, $_builder.getIndexType(), axis);
  }]>];
}

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "The tile 0, 1, ..., N - 1";
  let description = [{
    An index tile whose element i is i (an iota), whatever thread holds it.

    ```mlir
    %i = sympow_tile.range : tensor<256xindex, #sympow_tile.blocked<threads = 256, per_thread = 1>>
    ```
  }];
  let results = (outs Tile_IndexTile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"the value is of the tile's element type", "result",
                   "value",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "A tile with one value everywhere";
  let description = [{
    ```mlir
    %k = sympow_tile.splat %keep : tensor<256xf32, #blocked>
    ```

    Matrix tiles (`#sympow_tile.mma`, `#sympow_tile.dot_operand`) too, e.g.
    a decay that scales an accumulator.
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs AnyTypeOf<[Tile_AnyTile, Tile_MatrixTile]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    TypesMatchWith<"the offsets are an index tile of the result's layout",
                   "result", "offsets",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IndexType::get($_ctxt))">,
    OptionalTypesMatchWith<"the mask is an i1 tile of the result's layout",
                   "result", "mask",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IntegerType::get($_ctxt, 1))">,
    OptionalTypesMatchWith<"`other` is of the result's type", "result",
                   "other", "$_self">]> {
  let summary = "Loads a tile: base[offsets], `other` where the mask is false";
  let description = [{
    Element i of the result is `base[offsets[i]]` where `mask[i]` holds, and
    `other[i]` elsewhere; masked elements are not read, so their offsets may
    be out of bounds. Without a mask every element is read.

    `contiguous` is the caller's promise that each thread's R elements are
    a run: `offsets[t R + s] = offsets[t R] + s`, with `offsets[t R]` a
    multiple of R, or of 16 bytes' worth of elements where a run is longer
    than 16 bytes (and the buffer 16-byte aligned, as every kernel buffer
    is). A thread whose R mask bits all hold then reads its run with one
    vector access (16 bytes for 4 x f32, longer runs in 16-byte pieces);
    others fall back to one guarded
    access per element. Without the promise the lowering cannot know the
    offsets are adjacent (Triton derives it by an axis analysis; here the
    kernel says so).

    ```mlir
    %x = sympow_tile.load %S[%at] mask %inside, %zero
        : memref<?xf32> -> tensor<256xf32, #blocked>
    %y = sympow_tile.load %S[%at] contiguous
        : memref<?xf32> -> tensor<1024xf32, #blocked4>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead]>:$base,
                       Tile_IndexTile:$offsets,
                       Optional<Tile_MaskTile>:$mask,
                       Optional<Tile_AnyTile>:$other,
                       UnitAttr:$contiguous);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $base `[` $offsets `]` (`mask` $mask^ `,` $other)? (`contiguous` $contiguous^)?
    attr-dict `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"the offsets are an index tile of the value's layout",
                   "value", "offsets",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IndexType::get($_ctxt))">,
    OptionalTypesMatchWith<"the mask is an i1 tile of the value's layout",
                   "value", "mask",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IntegerType::get($_ctxt, 1))">]> {
  let summary = "Stores a tile: base[offsets] = value where the mask holds";
  let description = [{
    Writes `value[i]` to `base[offsets[i]]` for every i whose `mask[i]`
    holds (every i without a mask). Two elements of one store must not
    write the same address. `contiguous` as for `sympow_tile.load`: one
    vector access per thread whose run is wholly unmasked.

    ```mlir
    sympow_tile.store %running, %S[%at] mask %inside
        : tensor<256xf32, #blocked>, memref<?xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$value,
                       Arg<Tile_Buffer, "", [MemWrite]>:$base,
                       Tile_IndexTile:$offsets,
                       Optional<Tile_MaskTile>:$mask,
                       UnitAttr:$contiguous);
  let assemblyFormat = [{
    $value `,` $base `[` $offsets `]` (`mask` $mask^)? (`contiguous` $contiguous^)? attr-dict
    `:` type($value) `,` type($base)
  }];
  let hasVerifier = 1;
}

def Tile_ExpandOp : Tile_Op<"expand", [Pure]> {
  let summary = "Each thread's element, repeated in the R slots of a wider tile";
  let description = [{
    From a tile of one element per thread (`blocked<P, 1>`) to one of R per
    thread (`blocked<P, R>`): element i of the result is element i / R of
    the source, so every thread gets its own value in all its slots and no
    value crosses threads. Kernels compute what is per row of a state once
    per thread (a row of phi, its Z) and expand it over the row's columns.

    ```mlir
    %w = sympow_tile.expand %phi : tensor<256xf32, #b1> -> tensor<1024xf32, #b4>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_RunOp : Tile_Op<"run", [Pure]> {
  let summary = "The offsets of each thread's run of R adjacent elements";
  let description = [{
    From an index tile of one element per thread (`blocked<P, 1>`) to one of
    R per thread (`blocked<P, R>`): element t R + s of the result is
    `start[t] + s`. These are the offsets of a `contiguous` load or store
    whose runs start at `start`: such an access takes the start alone (one
    vector access) and forms the other offsets only where its mask splits a
    run, as the hardware addresses a vector access by its first element.

    ```mlir
    %at = sympow_tile.run %start : tensor<128xindex, #b1> -> tensor<1024xindex, #b8>
    %x = sympow_tile.load %src[%at] contiguous
        : memref<?xbf16> -> tensor<1024xbf16, #b8>
    ```
  }];
  let arguments = (ins Tile_IndexTile:$start);
  let results = (outs Tile_IndexTile:$result);
  let assemblyFormat = "$start attr-dict `:` type($start) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_InterleaveOp : Tile_Op<"interleave", [Pure,
    AllTypesMatch<["even", "odd"]>]> {
  let summary = "Two tiles' runs, slot by slot, as one run twice as long";
  let description = [{
    From two tiles of R elements per thread (`blocked<P, R>`) to one of 2R
    (`blocked<P, 2R>`): slot 2s of a thread's run is slot s of its run of
    `even`, slot 2s + 1 slot s of its run of `odd`; no value crosses
    threads. chunk_state_pass stages two tokens' runs of keys this way, so
    that each pair of tokens' elements of a dim are adjacent in workgroup
    memory (one 8-byte read where Phi^T takes both).

    ```mlir
    %pairs = sympow_tile.interleave %k0, %k1
        : tensor<2048xf32, #b8> -> tensor<4096xf32, #b16>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$even, Tile_AnyTile:$odd);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat =
      "$even `,` $odd attr-dict `:` type($even) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SlotsOp : Tile_Op<"slots", [Pure]> {
  let summary = "Each thread's slots from `offset` on, as a shorter run";
  let description = [{
    From a tile of R elements per thread (`blocked<P, R>`) to one of S <= R
    (`blocked<P, S>`): slot s of a thread's run is slot `offset` + s of its
    run of `source` (offset + S <= R); no value crosses threads, and the
    lowering moves no data (a part of the thread's registers).
    chunk_state_pass's consumers read a pair of tokens' weights as one run
    of its bf16 hi and lo halves (one 8-byte load) and take each half this
    way.

    ```mlir
    %lo = sympow_tile.slots %w {offset = 2}
        : tensor<512xbf16, #b4> -> tensor<256xbf16, #b2>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$source,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat =
      "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ColumnSumOp : Tile_Op<"column_sum", [Pure,
    AllTypesMatch<["source", "result"]>]> {
  let summary = "Every element gets the sum of its column";
  let description = [{
    The tile read as rows of `columns` elements (row-major; `columns`
    divides its size): element i of the result is the sum of the elements
    j with j mod columns = i mod columns. `columns = 1` sums the whole tile
    into every element; `columns` = the size copies it. A block-wide
    reduction: it goes through workgroup memory with barriers, so it must
    be reached by every thread of the program (uniform control flow).
    Floats only; the order of the additions is unspecified.

    ```mlir
    %num = sympow_tile.column_sum %x {columns = 64} : tensor<1024xf32, #b4>
    ```
  }];
  let arguments = (ins Tile_TileOf<[AnyFloat], "floats">:$source,
                       ConfinedAttr<I64Attr, [IntPositive]>:$columns);
  let results = (outs Tile_TileOf<[AnyFloat], "floats">:$result);
  let assemblyFormat = "$source attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure,
    AllTypesMatch<["source", "result"]>]> {
  let summary = "Inclusive sums within segments of adjacent elements";
  let description = [{
    The tile (R elements per thread, R a power of two, whole warps) read as
    segments of `segment` adjacent elements, a power of two up to 32 R:
    element i of the result is the sum of the elements of i's segment from
    its first up to i, or with `reverse` from i up to its last. A segment
    lies in one warp, so the scan needs neither workgroup memory nor
    barriers: a running sum over each thread's elements, then, where a
    segment spans threads, log2(segment / R) rounds of shuffles of their
    totals; threads in divergent control flow may not reach it. Floats
    only; the order of the additions is unspecified.

    ```mlir
    // Thread j of each warp: x[j] + x[j + 1] + ... + x[31].
    %later = sympow_tile.scan %x {segment = 32, reverse} : tensor<256xf32, #b1>
    // Each 4 threads' 8 elements (2 a thread): their sum at the first.
    %rows = sympow_tile.scan %y {segment = 8, reverse} : tensor<512xf32, #b2>
    ```
  }];
  let arguments = (ins Tile_TileOf<[AnyFloat], "floats">:$source,
                       ConfinedAttr<I64Attr, [IntPositive]>:$segment,
                       UnitAttr:$reverse);
  let results = (outs Tile_TileOf<[AnyFloat], "floats">:$result);
  let assemblyFormat = "$source attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "int64_t":$segment,
                   "bool":$reverse), [{
      build($_builder, $_state, source.getType(), source,
            $_builder.getI64IntegerAttr(segment),
            reverse ? $_builder.getUnitAttr() : nullptr);
    }]>];
  let hasVerifier = 1;
}

def Tile_SegmentReduceOp : Tile_Op<"segment_reduce", [Pure,
    AllTypesMatch<["source", "result"]>]> {
  let summary = "Every element gets its segment's sum or maximum";
  let description = [{
    The tile (R elements per thread, R a power of two, whole warps) read as
    segments of `segment` adjacent elements, a power of two up to 32 R:
    element i of the result is the sum (`sum`) or the maximum (`max`) of
    i's segment. A dot product split over the W / R threads that share a
    row, each with a slice of it, is one: every thread gets the row's
    value. Within a warp, as `scan`: each thread combines its elements of
    a segment, then, where a segment spans threads, log2(segment / R)
    rounds of xor shuffles; threads in divergent control flow may not
    reach it. Floats only; the order of a sum's additions is unspecified.

    ```mlir
    // Each 4 adjacent threads' values: their sum, at all four.
    %dot = sympow_tile.segment_reduce sum %part {segment = 4} : tensor<256xf32, #b1>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Tile_TileOf<[AnyFloat], "floats">:$source,
                       ConfinedAttr<I64Attr, [IntPositive]>:$segment);
  let results = (outs Tile_TileOf<[AnyFloat], "floats">:$result);
  let assemblyFormat = "$kind $source attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::sympow::tile::ReduceKind":$kind, "::mlir::Value":$source,
                   "int64_t":$segment), [{
      build($_builder, $_state, source.getType(),
            ::sympow::tile::ReduceKindAttr::get($_builder.getContext(), kind),
            source, $_builder.getI64IntegerAttr(segment));
    }]>];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies into workgroup memory
//===----------------------------------------------------------------------===//

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments,
    AllTypesMatch<["sourceStarts", "destStarts"]>,
    OptionalTypesMatchWith<"the mask is an i1 tile of the starts' layout",
                   "sourceStarts", "mask",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IntegerType::get($_ctxt, 1))">,
    OptionalTypesMatchWith<"`read` is an i1 tile of the starts' layout",
                   "sourceStarts", "read",
                   "::sympow::tile::withElementType($_self, "
                   "::mlir::IntegerType::get($_ctxt, 1))">]> {
  let summary = "Each thread copies a run of global elements to workgroup "
                "memory, without registers, asynchronously";
  let description = [{
    Thread t copies `elements` adjacent elements from
    `source[sourceStarts[t]]` on to `dest[destStarts[t]]` on, where
    `mask[t]` holds (every thread without a mask). Where `read[t]` is false
    it writes zeros instead and reads nothing (PTX's source size 0), but
    its source offset must still lie in the buffer: the emulator checks it
    as for any copy. A run is 4, 8 or 16 bytes, and both starts are
    multiples of the run (buffers are 16-byte aligned).

    The copy is asynchronous (PTX `cp.async`: its data does not pass
    through the thread's registers): nothing may read or write the
    destination before the copying thread's `sympow_tile.async_wait` and,
    for other threads, a barrier after it. So a kernel issues the next
    step's copies, computes on the current step's, then waits: the copies'
    latency hides behind the work.

    ```mlir
    sympow_tile.async_copy %src[%from], %rows[%to] elements 8
        mask %inTile read %live
        : memref<?xbf16>, memref<2304xbf16, #gpu.address_space<workgroup>>,
          tensor<128xindex, #b1>
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead]>:$source,
                       Tile_IndexTile:$sourceStarts,
                       Arg<Tile_Buffer, "", [MemWrite]>:$dest,
                       Tile_IndexTile:$destStarts,
                       ConfinedAttr<I64Attr, [IntPositive]>:$elements,
                       Optional<Tile_MaskTile>:$mask,
                       Optional<Tile_MaskTile>:$read);
  let assemblyFormat = [{
    $source `[` $sourceStarts `]` `,` $dest `[` $destStarts `]`
    `elements` $elements (`mask` $mask^)? (`read` $read^)? attr-dict
    `:` type($source) `,` type($dest) `,` type($sourceStarts)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "Waits for every asynchronous copy this thread issued";
  let description = [{
    Returns once the copies of every `sympow_tile.async_copy` the thread
    issued have landed (PTX `cp.async.wait_all`). Other threads see them
    after a barrier that follows.

    ```mlir
    sympow_tile.async_wait
    gpu.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_LastArrivalOp : Tile_Op<"last_arrival"> {
  let summary = "Whether this program is the last of `programs` to arrive "
                "at a counter in global memory";
  let description = [{
    The programs that share `counters[index]` (`programs` of them in one
    launch) each arrive once; the result, uniform over the program, is true
    in the one that arrives last. Every global store a thread of any of
    those programs made before its arrival is visible to every thread of
    the last one after it (a GPU-scope release and acquire), so the last
    program can reduce what the others wrote: a split reduction in one
    launch, with no second kernel.

    The counter word holds `(epoch << 32) | arrivals`. A word whose high
    half is not `epoch` (the caller's memory as it comes, or another
    launch's) counts as no arrivals, so the counters need no zeroing; the
    last program leaves `epoch << 32`, no arrivals, for the next launch
    with the same epoch (a replayed CUDA graph). A block-wide op: it passes
    barriers, so every thread of the program must reach it (uniform
    control flow).

    ```mlir
    %last = sympow_tile.last_arrival %arrivals[%bh] epoch %epoch programs 44
        : memref<?xi64>
    ```
  }];
  let arguments = (ins Arg<MemRefOf<[I64]>, "", [MemRead, MemWrite]>:$counters,
                       Index:$index, I64:$epoch,
                       ConfinedAttr<I64Attr, [IntPositive]>:$programs);
  let results = (outs I1:$last);
  let assemblyFormat = [{
    $counters `[` $index `]` `epoch` $epoch `programs` $programs attr-dict
    `:` type($counters)
  }];
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def Tile_WarpgroupsOp : Tile_Op<"warpgroups", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "Runs its body on a range of the program's warpgroups";
  let description = [{
    The body is a tile program of its own over warpgroups `[first, first +
    count)` of the program (128 threads each): its tiles are spread over
    `128 count` threads, the body's thread `t` being the program's thread
    `128 first + t`. Where a kernel gives its warpgroups different work (a
    producer that loads and stages while consumers compute, as
    FlashAttention 3 does), each part is one such region, and the regions
    run at once.

    The body takes uniform scalars and buffers from outside, no tiles
    (those are spread over other threads), and returns nothing: the
    warpgroups hand data over in workgroup memory, ordered by barriers. A
    `gpu.barrier` inside is the program's barrier: it opens when every
    thread waits at a barrier, the other regions' threads at theirs (their
    own loops keep the same count; on the GPU every bar.sync 0 is one
    barrier, reached by each warp whole). Nothing inside may run ops that
    wait for the whole program at barriers of their own (`column_sum`, a
    row reduction over several warp columns, `last_arrival`), nor run on one
    thread of it (`elected`). The tile lowering makes the region an `scf.if`
    on the warpgroup index, uniform over each warp (adjacent regions of
    disjoint ranges one if-else chain, so that a region's values are not
    live through the others' code), and marks its barriers for the
    emulator, which opens them together.

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      sympow_tile.warpgroups first 2 count 1 {
        %t = sympow_tile.range : tensor<128xindex, #sympow_tile.blocked<128, 1>>
        sympow_tile.store %t, %staged[%t] : ...
      }
      gpu.barrier
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$first,
                       ConfinedAttr<I64Attr, [IntPositive]>:$count);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`first` $first `count` $count $body attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$first, "int64_t":$count)>];
  let extraClassDeclaration = [{
    /// The threads its tiles are spread over.
    int64_t getThreads() { return 128 * getCount(); }
    /// The attribute the tile lowering marks the body's gpu.barriers with:
    /// the emulator opens them together with the other regions' barriers.
    static constexpr ::llvm::StringLiteral getBarrierAttrName() {
      return ::llvm::StringLiteral("sympow_tile.region_barrier");
    }
  }];
}

//===----------------------------------------------------------------------===//
// The hardware's base-2 exp and log, flushing subnormals
//===----------------------------------------------------------------------===//

// f32 as a scalar, a vector (a thread's elements once tiles are
// distributed) or a tile of any layout.
def Tile_F32Like : AnyTypeOf<[F32, VectorOfAnyRankOf<[F32]>,
    RankedTensorOf<[F32]>], "f32, or a vector or tile of f32">;

class Tile_FlushMathOp<string mnemonic> : Tile_Op<mnemonic, [Pure,
    Elementwise, AllTypesMatch<["x", "result"]>]> {
  let arguments = (ins Tile_F32Like:$x);
  let results = (outs Tile_F32Like:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Tile_Exp2FtzOp : Tile_FlushMathOp<"exp2_ftz"> {
  let summary = "2^x as the hardware approximates it, subnormals flushed";
  let description = [{
    Element-wise 2^x to the SFU's accuracy (PTX `ex2.approx.ftz.f32`, one
    MUFU.EX2): a subnormal x counts as 0, and a result below 2^-126 is +0.
    `math.exp2` with `afn` keeps subnormal results, for which ptxas wraps
    each MUFU in 3 to 4 instructions. Where a weight 2^x below 2^-126 of
    the largest one cannot matter (the weights of a row against its
    running maximum), this saves them.

    Lowered per target: `--sympow-lower-flush-math` (the NVVM intrinsic,
    element by element); the emulator runs `math.exp2` and flushes its
    result.

    ```mlir
    %w = sympow_tile.exp2_ftz %lw : tensor<64x32xf32, #mma>
    ```
  }];
}

def Tile_Log2FtzOp : Tile_FlushMathOp<"log2_ftz"> {
  let summary = "log2(x) as the hardware approximates it, subnormals flushed";
  let description = [{
    Element-wise log2(x) to the SFU's accuracy (PTX `lg2.approx.ftz.f32`,
    one MUFU.LG2): a subnormal x counts as (signed) 0, so its log2 is -inf.
    `math.log2` with `afn` keeps subnormal x, for which ptxas wraps each
    MUFU in 3 to 4 instructions.

    Lowered per target as `sympow_tile.exp2_ftz`.

    ```mlir
    %l = sympow_tile.log2_ftz %abs : tensor<64x32xf32, #mma>
    ```
  }];
}

#endif // SYMPOW_COMPILER_TILE_TILEOPS_TD
