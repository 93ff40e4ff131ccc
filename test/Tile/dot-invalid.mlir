// The verifiers of matrix tiles, dot and matrix loads/stores.
// RUN: sympow-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a tile in #sympow_tile.mma<warps = [2, 2]> is 2-D with rows a multiple of 16 x 2 and columns a multiple of 8 x 2}}
func.func private @rows(tensor<16x16xf32, #sympow_tile.mma<warps = [2, 2]>>)

// -----

// expected-error @+1 {{an mma layout has 1 to 32 warps, not [8, 8]}}
func.func private @warps(tensor<128x64xf32, #sympow_tile.mma<warps = [8, 8]>>)

// -----

// expected-error @+1 {{a dot operand is 0 (A) or 1 (B), not 2}}
func.func private @operand(tensor<16x16xbf16, #sympow_tile.dot_operand<operand = 2, parent = #sympow_tile.mma<warps = [1, 1]>>>)

// -----

// expected-error @+1 {{is 2-D with rows a multiple of 16 and columns a multiple of 8 x warps along N}}
func.func private @b(tensor<16x8xbf16, #sympow_tile.dot_operand<operand = 1, parent = #sympow_tile.mma<warps = [1, 2]>>>)

// -----

// expected-error @+1 {{is 2-D with rows a multiple of 16 x warps along M and columns a multiple of 16}}
func.func private @a(tensor<16x8xbf16, #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [1, 1]>>>)

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @swapped(%a: tensor<16x16xbf16, #A>, %b: tensor<16x8xbf16, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{takes operand 0 (A) first and operand 1 (B) second}}
  %d = sympow_tile.dot %b, %a, %c : tensor<16x8xbf16, #B>, tensor<16x16xbf16, #A> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @shape(%a: tensor<16x32xbf16, #A>, %b: tensor<16x8xbf16, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{multiplies 16x32 by 16x8 into 16x8}}
  %d = sympow_tile.dot %a, %b, %c : tensor<16x32xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#mma2 = #sympow_tile.mma<warps = [1, 2]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma2>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @parent(%a: tensor<16x16xbf16, #A>, %b: tensor<16x16xbf16, #B>, %c: tensor<16x16xf32, #mma>) {
  // expected-error @+1 {{operands are dot operands of the result's layout #sympow_tile.mma<warps = [1, 1]>}}
  %d = sympow_tile.dot %a, %b, %c : tensor<16x16xbf16, #A>, tensor<16x16xbf16, #B> -> tensor<16x16xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @f32native(%a: tensor<16x16xf32, #A>, %b: tensor<16x8xf32, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{native precision takes bf16 or f16 operands}}
  %d = sympow_tile.dot %a, %b, %c : tensor<16x16xf32, #A>, tensor<16x8xf32, #B> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @bf16split(%a: tensor<16x16xbf16, #A>, %b: tensor<16x8xbf16, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{split_bf16 takes f32 operands, or one f32 and one bf16}}
  %d = sympow_tile.dot %a, %b, %c precision = split_bf16 : tensor<16x16xbf16, #A>, tensor<16x8xbf16, #B> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @f16split(%a: tensor<16x16xf32, #A>, %b: tensor<16x8xf16, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{split_bf16 takes f32 operands, or one f32 and one bf16}}
  %d = sympow_tile.dot %a, %b, %c precision = split_bf16 : tensor<16x16xf32, #A>, tensor<16x8xf16, #B> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @mixed(%a: tensor<16x16xbf16, #A>, %b: tensor<16x8xf16, #B>, %c: tensor<16x8xf32, #mma>) {
  // expected-error @+1 {{operands have one element type}}
  %d = sympow_tile.dot %a, %b, %c : tensor<16x16xbf16, #A>, tensor<16x8xf16, #B> -> tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
func.func @accumulator(%a: tensor<16x16xbf16, #sympow_tile.dot_operand<operand = 0, parent = #mma>>, %b: tensor<16x8xbf16, #sympow_tile.dot_operand<operand = 1, parent = #mma>>, %c: tensor<16x8xbf16, #mma>) {
  // expected-error @+1 {{operand #2 must be f32 tile in an mma layout}}
  %d = sympow_tile.dot %a, %b, %c : tensor<16x16xbf16, #sympow_tile.dot_operand<operand = 0, parent = #mma>>, tensor<16x8xbf16, #sympow_tile.dot_operand<operand = 1, parent = #mma>> -> tensor<16x8xbf16, #mma>
  return
}

// -----

func.func @elements(%m: memref<?xf32>, %i: index) {
  // expected-error @+1 {{moves 'tensor<16x8xbf16, #sympow_tile.mma<warps = [1, 1]>>' through a buffer of 'f32'}}
  %x = sympow_tile.matrix_load %m[%i] stride 8 : memref<?xf32> -> tensor<16x8xbf16, #sympow_tile.mma<warps = [1, 1]>>
  return
}

// -----

func.func @blocked(%m: memref<?xf32>, %i: index) {
  // expected-error @+1 {{result #0 must be tile in an mma or dot_operand layout}}
  %x = sympow_tile.matrix_load %m[%i] stride 8 : memref<?xf32> -> tensor<128xf32, #sympow_tile.blocked<threads = 128, per_thread = 1>>
  return
}

// -----

func.func @stride(%m: memref<?xf32>, %v: tensor<16x8xf32, #sympow_tile.mma<warps = [1, 1]>>, %i: index) {
  // expected-error @+1 {{attribute 'stride' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  sympow_tile.matrix_store %v, %m[%i] stride 0 : tensor<16x8xf32, #sympow_tile.mma<warps = [1, 1]>>, memref<?xf32>
  return
}

// -----

// 8-column pieces lie whole runs apart.
func.func @pieces(%m: memref<?xf32>, %v: tensor<16x8xf32, #sympow_tile.mma<warps = [1, 1]>>, %i: index) {
  // expected-error @+1 {{stores an accumulator's 8-column pieces row by row, a multiple of 8 elements apart, not 12}}
  sympow_tile.matrix_store %v, %m[%i] stride 8 pieces 12 : tensor<16x8xf32, #sympow_tile.mma<warps = [1, 1]>>, memref<?xf32>
  return
}

// -----

// A tile kernel's matrix tiles are spread over its threads: 2 x 2 warps are 128.
gpu.module @m {
  gpu.func @k(%m: memref<?xf32>) kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{tile 'tensor<32x16xf32, #sympow_tile.mma<warps = [2, 2]>>' is spread over 128 threads, the kernel has 64}}
    %x = sympow_tile.matrix_load %m[%c0] stride 16 : memref<?xf32> -> tensor<32x16xf32, #sympow_tile.mma<warps = [2, 2]>>
    gpu.return
  }
}

// -----

// row_reduce takes f32 accumulators only.
#b = #sympow_tile.blocked<threads = 32, per_thread = 1>
func.func @row_reduce_blocked(%x: tensor<32xf32, #b>) {
  // expected-error @+1 {{must be f32 tile in an mma layout}}
  %m = sympow_tile.row_reduce max %x : tensor<32xf32, #b>
  return
}

// -----

// to_operand needs whole rows per warp: one warp column.
#mma = #sympow_tile.mma<warps = [1, 2]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @to_operand_columns(%x: tensor<16x16xbf16, #mma>) {
  // expected-error @+1 {{needs one warp column (mma<warps = [WM, 1]>) and the same mma layout as the operand's parent}}
  %a = sympow_tile.to_operand %x : tensor<16x16xbf16, #mma> -> tensor<16x16xbf16, #A>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>
func.func @to_operand_b(%x: tensor<16x16xbf16, #mma>) {
  // expected-error @+1 {{takes an mma-layout tile to a dot_operand<operand = 0> tile}}
  %b = sympow_tile.to_operand %x : tensor<16x16xbf16, #mma> -> tensor<16x16xbf16, #B>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @to_operand_type(%x: tensor<16x16xf32, #mma>) {
  // expected-error @+1 {{keeps the rows and the element type}}
  %a = sympow_tile.to_operand %x : tensor<16x16xf32, #mma> -> tensor<16x16xbf16, #A>
  return
}

// -----

// A slice of the columns is whole k steps.
#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @to_operand_slice(%x: tensor<16x32xbf16, #mma>) {
  // expected-error @+1 {{takes whole k steps of the source's columns: first_column and the width multiples of 16, inside the source's 32 columns}}
  %a = sympow_tile.to_operand %x {first_column = 8 : i64} : tensor<16x32xbf16, #mma> -> tensor<16x16xbf16, #A>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @to_operand_past(%x: tensor<16x32xbf16, #mma>) {
  // expected-error @+1 {{inside the source's 32 columns}}
  %a = sympow_tile.to_operand %x {first_column = 16 : i64} : tensor<16x32xbf16, #mma> -> tensor<16x32xbf16, #A>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
func.func @matrix_range_type() {
  // expected-error @+1 {{yields an index or i32 tile}}
  %i = sympow_tile.matrix_range 0 : tensor<16x8xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
func.func @matrix_range_dim() {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint}}
  %i = sympow_tile.matrix_range 2 : tensor<16x8xindex, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [1, 1]>
func.func @paired_odd(%x: tensor<16x8xf32, #mma>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{pairs columns of an accumulator stored row by row with an even stride}}
  sympow_tile.matrix_store %x, %out[%c0] stride 9 paired : tensor<16x8xf32, #mma>, memref<?xf32>
  return
}

// -----

// repeat_columns moves values within a thread: one warp column only.
#mma = #sympow_tile.mma<warps = [1, 2]>
func.func @repeat_columns_warps(%x: tensor<16x16xf32, #mma>) {
  // expected-error @+1 {{needs one warp column (mma<warps = [WM, 1]>) and the same layout on both sides}}
  %y = sympow_tile.repeat_columns %x : tensor<16x16xf32, #mma> -> tensor<16x32xf32, #mma>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [2, 1]>
func.func @repeat_columns_rows(%x: tensor<32x16xf32, #mma>) {
  // expected-error @+1 {{keeps the rows}}
  %y = sympow_tile.repeat_columns %x : tensor<32x16xf32, #mma> -> tensor<64x16xf32, #mma>
  return
}

// -----

#A = #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 1]>>
func.func @fragments_count(%x: tensor<128xbf16, #sympow_tile.blocked<threads = 64, per_thread = 2>>) {
  // expected-error @+1 {{needs the 8 elements a thread holds of the result, not 4}}
  %a = sympow_tile.fragments %x, %x : tensor<128xbf16, #sympow_tile.blocked<threads = 64, per_thread = 2>>, tensor<128xbf16, #sympow_tile.blocked<threads = 64, per_thread = 2>> -> tensor<32x16xbf16, #A>
  return
}

// -----

#A = #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 1]>>
func.func @fragments_threads(%x: tensor<1024xbf16, #sympow_tile.blocked<threads = 128, per_thread = 8>>) {
  // expected-error @+1 {{takes blocked tiles over the result's 64 threads}}
  %a = sympow_tile.fragments %x : tensor<1024xbf16, #sympow_tile.blocked<threads = 128, per_thread = 8>> -> tensor<32x16xbf16, #A>
  return
}

// -----

#A = #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 1]>>
func.func @fragments_type(%x: tensor<512xf32, #sympow_tile.blocked<threads = 64, per_thread = 8>>) {
  // expected-error @+1 {{keeps the element type}}
  %a = sympow_tile.fragments %x : tensor<512xf32, #sympow_tile.blocked<threads = 64, per_thread = 8>> -> tensor<32x16xbf16, #A>
  return
}

// -----

// A of mma<warps = [2, 2]>: each warp holds its warp row's 16 rows (the two
// warps of a row the same), 8 elements a thread of a 32 x 16 tile.
#A = #sympow_tile.dot_operand<operand = 0, parent = #sympow_tile.mma<warps = [2, 2]>>
func.func @fragments_replicated(%x: tensor<512xbf16, #sympow_tile.blocked<threads = 128, per_thread = 4>>) {
  // expected-error @+1 {{needs the 8 elements a thread holds of the result, not 4}}
  %a = sympow_tile.fragments %x : tensor<512xbf16, #sympow_tile.blocked<threads = 128, per_thread = 4>> -> tensor<32x16xbf16, #A>
  return
}
