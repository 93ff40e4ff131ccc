// Tile kernels with dots, lowered, on the emulator. The numbers are checked
// against a CPU product in test/Emulator/TileDotTest.cpp (which runs these
// kernels); here: the launches are clean (no race between staging and
// ldmatrix, no misaligned ldmatrix row, no access past a buffer, no lane
// left out of an mma.sync).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel matmul --grid 1 --block 128 --arg bf16:4096=1 --arg bf16:2048=0.5 --arg f32:2048=1 --arg f32:2048 --print | FileCheck %s --check-prefix=MATMUL
// MATMUL: emulator: ok
// 1 + 64 x 1 x 0.5 everywhere.
// MATMUL: arg3 = [33, 33, 33,
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel matmul_t --grid 1 --block 128 --arg bf16:2048=2 --arg bf16:1024=0.25 --arg f32:2048 --arg i64=3 --print | FileCheck %s --check-prefix=TRANS
// TRANS: emulator: ok
// 3 x 32 x 2 x 0.25.
// TRANS: arg2 = [48, 48, 48,
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel split --grid 1 --block 128 --arg f32:1600=1.00390625 --arg f32:1024=1 --arg f32:1600 --arg i64=50 --print | FileCheck %s --check-prefix=SPLIT
// SPLIT: emulator: ok
// 32 x (1 + 2^-8): the 2^-8 lives in the lo half (bf16(1 + 2^-8) = 1).
// SPLIT: arg2 = [32.125, 32.125, 32.125,
// The same with all 64 rows inside the bounds: every element read and
// written, none past the buffers.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel split --grid 1 --block 128 --arg f32:2048=1.00390625 --arg f32:1024=1 --arg f32:2048 --arg i64=64 --print | FileCheck %s --check-prefix=WHOLE
// WHOLE: emulator: ok
// WHOLE: arg2 = [{{(32.125, )*}}32.125]
// The same product stored with `paired`: one 8-byte store per column pair
// (aligned, inside the 50 rows; the emulator checks both).
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s --check-prefix=PAIRED-IR
// PAIRED-IR-LABEL: gpu.func @split_paired
// PAIRED-IR: vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// PAIRED-IR-NOT: memref.store
// PAIRED-IR: gpu.return
// In 8-column pieces 512 elements apart (`stride 8 pieces 512`: each
// piece's 64 rows one run, as chunk_output's bulk copies read the chunk
// states): with a_ik = 32 i + k and b = 1, c_ij = 1024 i + 496, so the
// first 8 elements are row 0's columns 0-7, the next 8 row 1's.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel split_pieces --grid 1 --block 128 --arg f32:2048=iota --arg f32:1024=1 --arg f32:2048 --print | FileCheck %s --check-prefix=PIECES
// PIECES: emulator: ok
// PIECES: arg2 = [496, 496, 496, 496, 496, 496, 496, 496, 1520, 1520,
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel split_paired --grid 1 --block 128 --arg f32:1600=1.00390625 --arg f32:1024=1 --arg f32:1600 --arg i64=50 --print | FileCheck %s --check-prefix=PAIRED
// PAIRED: emulator: ok
// PAIRED: arg2 = [{{(32.125, )*}}32.125]

#b8 = #sympow_tile.blocked<threads = 128, per_thread = 8>
#b16 = #sympow_tile.blocked<threads = 128, per_thread = 16>
#mma = #sympow_tile.mma<warps = [2, 2]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
#B = #sympow_tile.dot_operand<operand = 1, parent = #mma>

module attributes {gpu.container_module} {
  gpu.module @m {
    // out = c + a b: a 64 x 64 and b 64 x 32 (row-major bf16), c and out
    // 64 x 32 f32. K in two blocks of 32 staged through workgroup memory in
    // their own order (rows padded to 40 elements, 80 bytes), so A is read
    // with ldmatrix x4 and B with ldmatrix x2 .trans; the accumulator is
    // carried by the loop.
    gpu.func @matmul(%a: memref<?xbf16>, %b: memref<?xbf16>,
                     %c: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%sa: memref<2560xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<1280xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c32 = arith.constant 32 : index
      %c1024 = arith.constant 1024 : index
      %c1280 = arith.constant 1280 : index
      %i = sympow_tile.range : tensor<1024xindex, #b8>
      %k32 = arith.constant dense<32> : tensor<1024xindex, #b8>
      %k40 = arith.constant dense<40> : tensor<1024xindex, #b8>
      %k64 = arith.constant dense<64> : tensor<1024xindex, #b8>
      %row = arith.divui %i, %k32 : tensor<1024xindex, #b8>
      %col = arith.remui %i, %k32 : tensor<1024xindex, #b8>
      // Element i of a 32-wide block: global row * ld + col, shared row * 40 + col.
      %rowA = arith.muli %row, %k64 : tensor<1024xindex, #b8>
      %atA = arith.addi %rowA, %col : tensor<1024xindex, #b8>
      %rowB = arith.muli %row, %k32 : tensor<1024xindex, #b8>
      %atB = arith.addi %rowB, %col : tensor<1024xindex, #b8>
      %rowS = arith.muli %row, %k40 : tensor<1024xindex, #b8>
      %atS = arith.addi %rowS, %col : tensor<1024xindex, #b8>
      %acc0 = sympow_tile.matrix_load %c[%c0] stride 32 : memref<?xf32> -> tensor<64x32xf32, #mma>
      %acc = scf.for %kb = %c0 to %c2 step %c1 iter_args(%acc1 = %acc0) -> (tensor<64x32xf32, #mma>) {
        gpu.barrier // the previous block's ldmatrix readers are done
        %k0 = arith.muli %kb, %c32 : index
        %ka = sympow_tile.splat %k0 : tensor<1024xindex, #b8>
        // A: rows 0-31 then 32-63 of the block (32 rows of 64 apart).
        scf.for %s = %c0 to %c2 step %c1 {
          %rs = arith.muli %s, %c1024 : index
          %ga = arith.muli %rs, %c2 : index
          %gas = sympow_tile.splat %ga : tensor<1024xindex, #b8>
          %g0 = arith.addi %atA, %gas : tensor<1024xindex, #b8>
          %g = arith.addi %g0, %ka : tensor<1024xindex, #b8>
          %x = sympow_tile.load %a[%g] contiguous : memref<?xbf16> -> tensor<1024xbf16, #b8>
          %ss = arith.muli %s, %c1280 : index
          %sss = sympow_tile.splat %ss : tensor<1024xindex, #b8>
          %sat = arith.addi %atS, %sss : tensor<1024xindex, #b8>
          sympow_tile.store %x, %sa[%sat] contiguous : tensor<1024xbf16, #b8>, memref<2560xbf16, #gpu.address_space<workgroup>>
        }
        %kb0 = arith.muli %k0, %c32 : index
        %kbs = sympow_tile.splat %kb0 : tensor<1024xindex, #b8>
        %gb = arith.addi %atB, %kbs : tensor<1024xindex, #b8>
        %y = sympow_tile.load %b[%gb] contiguous : memref<?xbf16> -> tensor<1024xbf16, #b8>
        sympow_tile.store %y, %sb[%atS] contiguous : tensor<1024xbf16, #b8>, memref<1280xbf16, #gpu.address_space<workgroup>>
        gpu.barrier
        %ta = sympow_tile.matrix_load %sa[%c0] stride 40 : memref<2560xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #A>
        %tb = sympow_tile.matrix_load %sb[%c0] stride 40 : memref<1280xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #B>
        %next = sympow_tile.dot %ta, %tb, %acc1 : tensor<64x32xbf16, #A>, tensor<32x32xbf16, #B> -> tensor<64x32xf32, #mma>
        scf.yield %next : tensor<64x32xf32, #mma>
      }
      sympow_tile.matrix_store %acc, %out[%c0] stride 32 : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }

    // out = s a b from transposed storage: at = aᵀ (32 x 64, [k][m]) and
    // bt = bᵀ (32 x 32, [n][k]) staged as they are (rows padded to 72 and
    // 40), read as A with ldmatrix x4 .trans and as B with ldmatrix x4, two
    // 16 x 8 fragments adjacent in n per load; the accumulator scaled by a
    // splat of s.
    gpu.func @matmul_t(%at: memref<?xbf16>, %bt: memref<?xbf16>,
                       %out: memref<?xf32>, %s64: i64)
        workgroup(%sa: memref<2304xbf16, #gpu.address_space<workgroup>>,
                  %sb: memref<1280xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %i = sympow_tile.range : tensor<2048xindex, #b16>
      %k64 = arith.constant dense<64> : tensor<2048xindex, #b16>
      %k72 = arith.constant dense<72> : tensor<2048xindex, #b16>
      %row = arith.divui %i, %k64 : tensor<2048xindex, #b16>
      %col = arith.remui %i, %k64 : tensor<2048xindex, #b16>
      %rowS = arith.muli %row, %k72 : tensor<2048xindex, #b16>
      %atS = arith.addi %rowS, %col : tensor<2048xindex, #b16>
      %x = sympow_tile.load %at[%i] : memref<?xbf16> -> tensor<2048xbf16, #b16>
      sympow_tile.store %x, %sa[%atS] : tensor<2048xbf16, #b16>, memref<2304xbf16, #gpu.address_space<workgroup>>
      %j = sympow_tile.range : tensor<1024xindex, #b8>
      %k32 = arith.constant dense<32> : tensor<1024xindex, #b8>
      %k40 = arith.constant dense<40> : tensor<1024xindex, #b8>
      %rowj = arith.divui %j, %k32 : tensor<1024xindex, #b8>
      %colj = arith.remui %j, %k32 : tensor<1024xindex, #b8>
      %rowjS = arith.muli %rowj, %k40 : tensor<1024xindex, #b8>
      %btS = arith.addi %rowjS, %colj : tensor<1024xindex, #b8>
      %y = sympow_tile.load %bt[%j] contiguous : memref<?xbf16> -> tensor<1024xbf16, #b8>
      sympow_tile.store %y, %sb[%btS] contiguous : tensor<1024xbf16, #b8>, memref<1280xbf16, #gpu.address_space<workgroup>>
      gpu.barrier
      %ta = sympow_tile.matrix_load %sa[%c0] stride 72 transposed : memref<2304xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #A>
      %tb = sympow_tile.matrix_load %sb[%c0] stride 40 transposed : memref<1280xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #B>
      %zero = arith.constant dense<0.0> : tensor<64x32xf32, #mma>
      %ab = sympow_tile.dot %ta, %tb, %zero : tensor<64x32xbf16, #A>, tensor<32x32xbf16, #B> -> tensor<64x32xf32, #mma>
      %s = arith.sitofp %s64 : i64 to f32
      %ss = sympow_tile.splat %s : tensor<64x32xf32, #mma>
      %acc = arith.mulf %ab, %ss : tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %acc, %out[%c0] stride 32 : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }

    // out = a b in f32 accuracy from f32 operands (split_bf16), read
    // straight from global memory element by element: a is m x 32 (m <= 64
    // rows: the tile's last rows are masked), b 32 x 32, out m x 32.
    gpu.func @split(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>,
                    %m64: i64)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %m = arith.index_cast %m64 : i64 to index
      %ta = sympow_tile.matrix_load %a[%c0] stride 32 bounds(%m, %c32) : memref<?xf32> -> tensor<64x32xf32, #A>
      %tb = sympow_tile.matrix_load %b[%c0] stride 32 : memref<?xf32> -> tensor<32x32xf32, #B>
      %zero = arith.constant dense<0.0> : tensor<64x32xf32, #mma>
      %acc = sympow_tile.dot %ta, %tb, %zero precision = split_bf16 : tensor<64x32xf32, #A>, tensor<32x32xf32, #B> -> tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %acc, %out[%c0] stride 32 bounds(%m, %c32) : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }

    gpu.func @split_pieces(%a: memref<?xf32>, %b: memref<?xf32>,
                           %out: memref<?xf32>)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %ta = sympow_tile.matrix_load %a[%c0] stride 32 : memref<?xf32> -> tensor<64x32xf32, #A>
      %tb = sympow_tile.matrix_load %b[%c0] stride 32 : memref<?xf32> -> tensor<32x32xf32, #B>
      %zero = arith.constant dense<0.0> : tensor<64x32xf32, #mma>
      %acc = sympow_tile.dot %ta, %tb, %zero precision = split_bf16 : tensor<64x32xf32, #A>, tensor<32x32xf32, #B> -> tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %acc, %out[%c0] stride 8 pieces 512 paired : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }

    gpu.func @split_paired(%a: memref<?xf32>, %b: memref<?xf32>,
                           %out: memref<?xf32>, %m64: i64)
        kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %m = arith.index_cast %m64 : i64 to index
      %ta = sympow_tile.matrix_load %a[%c0] stride 32 bounds(%m, %c32) : memref<?xf32> -> tensor<64x32xf32, #A>
      %tb = sympow_tile.matrix_load %b[%c0] stride 32 : memref<?xf32> -> tensor<32x32xf32, #B>
      %zero = arith.constant dense<0.0> : tensor<64x32xf32, #mma>
      %acc = sympow_tile.dot %ta, %tb, %zero precision = split_bf16 : tensor<64x32xf32, #A>, tensor<32x32xf32, #B> -> tensor<64x32xf32, #mma>
      sympow_tile.matrix_store %acc, %out[%c0] stride 32 bounds(%m, %c32) paired : tensor<64x32xf32, #mma>, memref<?xf32>
      gpu.return
    }
  }
}
