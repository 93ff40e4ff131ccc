// Tile kernels, lowered, on the emulator: masked tails are not touched (an
// access past the 20 elements would be reported), each thread holds its
// elements, loops carry tiles.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel scan --grid 3 --block 8 --arg f32:20=iota --arg f32:4=0.5 --arg i64=20 --print | FileCheck %s --check-prefix=SCAN
// SCAN: emulator: ok
// Four steps of x = exp(0.5) x + 1 from x_i = i.
// SCAN: arg0 = [9.84869, 17.2377, 24.6268, {{.*}}, 150.241]
// SCAN: arg1 = [0.5, 0.5, 0.5, 0.5]
// The profile: the loop body (math.exp, math.fma) ran 4 times in each of
// the 24 threads, the kernel's entry block once in each.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel scan --grid 3 --block 8 --arg f32:20=iota --arg f32:4=0.5 --arg i64=20 --profile 5 | FileCheck %s --check-prefix=PROFILE
// PROFILE: profile of scan: 2 counted blocks, 960 arithmetic thread operations; the 2 with the most:
// PROFILE-NEXT: ops share runs fma f32 int sfu block
// PROFILE-NEXT: 864 90.0% 96 96 576 96 96 scan block 0 in scf.for < scan: memref.load math.exp math.fma
// PROFILE-NEXT: 96 10.0% 24 0 0 96 0 scan block 1 in scan:
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel pairs --grid 1 --block 4 --arg f32:8=iota --arg f32:8 --print | FileCheck %s --check-prefix=PAIRS
// PAIRS: emulator: ok
// PAIRS: arg1 = [0, 2, 4, 6, 8, 10, 12, 14]
// Two bf16 runs of two per thread, extended to f32 (by their bits) and
// interleaved: thread t's run of four is [x(4t), x(4t + 2), x(4t + 1),
// x(4t + 3)].
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel interleave --grid 1 --block 2 --arg bf16:8=iota --arg f32:8 --print | FileCheck %s --check-prefix=INTERLEAVE
// INTERLEAVE: emulator: ok
// INTERLEAVE: arg1 = [0, 2, 1, 3, 4, 6, 5, 7]
// A run of four per thread, its last two slots and its first two summed:
// thread t writes [x(4t + 2) + x(4t), x(4t + 3) + x(4t + 1)].
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel slots --grid 1 --block 2 --arg f32:8=iota --arg f32:4 --print | FileCheck %s --check-prefix=SLOTS
// SLOTS: emulator: ok
// SLOTS: arg1 = [2, 4, 10, 12]

#b1 = #sympow_tile.blocked<threads = 8, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 4, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scan(%x: memref<?xf32>, %decay: memref<?xf32>, %n64: i64) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 8, grid = [3, 1, B]>} {
      %n = arith.index_cast %n64 : i64 to index
      %pid = sympow_tile.program_id 0
      %c8 = arith.constant 8 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %start = arith.muli %pid, %c8 : index
      %s = sympow_tile.splat %start : tensor<8xindex, #b1>
      %r = sympow_tile.range : tensor<8xindex, #b1>
      %i = arith.addi %s, %r : tensor<8xindex, #b1>
      %bound = sympow_tile.splat %n : tensor<8xindex, #b1>
      %in = arith.cmpi ult, %i, %bound : tensor<8xindex, #b1>
      %zero = arith.constant dense<0.0> : tensor<8xf32, #b1>
      %one = arith.constant dense<1.0> : tensor<8xf32, #b1>
      %a = sympow_tile.load %x[%i] mask %in, %zero : memref<?xf32> -> tensor<8xf32, #b1>
      %out = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<8xf32, #b1>) {
        %g = memref.load %decay[%k] : memref<?xf32>
        %e = math.exp %g : f32
        %keep = sympow_tile.splat %e : tensor<8xf32, #b1>
        %next = math.fma %keep, %acc, %one : tensor<8xf32, #b1>
        scf.yield %next : tensor<8xf32, #b1>
      }
      sympow_tile.store %out, %x[%i] mask %in : tensor<8xf32, #b1>, memref<?xf32>
      gpu.return
    }
    gpu.func @pairs(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<8xindex, #b2>
      %v = sympow_tile.load %in[%i] : memref<?xf32> -> tensor<8xf32, #b2>
      %two = arith.constant dense<2.0> : tensor<8xf32, #b2>
      %p = arith.mulf %v, %two : tensor<8xf32, #b2>
      sympow_tile.store %p, %out[%i] : tensor<8xf32, #b2>, memref<?xf32>
      gpu.return
    }
    gpu.func @interleave(%in: memref<?xbf16>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 2, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>>
      %c4 = arith.constant 4 : index
      %c2 = arith.constant 2 : index
      %four = sympow_tile.splat %c4 : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>>
      %two = sympow_tile.splat %c2 : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>>
      %start = arith.muli %t, %four : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>>
      %second = arith.addi %start, %two : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>>
      %at = sympow_tile.run %start : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>> -> tensor<4xindex, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %at2 = sympow_tile.run %second : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>> -> tensor<4xindex, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %a = sympow_tile.load %in[%at] contiguous : memref<?xbf16> -> tensor<4xbf16, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %b = sympow_tile.load %in[%at2] contiguous : memref<?xbf16> -> tensor<4xbf16, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %fa = arith.extf %a : tensor<4xbf16, #sympow_tile.blocked<threads = 2, per_thread = 2>> to tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %fb = arith.extf %b : tensor<4xbf16, #sympow_tile.blocked<threads = 2, per_thread = 2>> to tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %pairs = sympow_tile.interleave %fa, %fb : tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>> -> tensor<8xf32, #sympow_tile.blocked<threads = 2, per_thread = 4>>
      %to = sympow_tile.run %start : tensor<2xindex, #sympow_tile.blocked<threads = 2, per_thread = 1>> -> tensor<8xindex, #sympow_tile.blocked<threads = 2, per_thread = 4>>
      sympow_tile.store %pairs, %out[%to] contiguous : tensor<8xf32, #sympow_tile.blocked<threads = 2, per_thread = 4>>, memref<?xf32>
      gpu.return
    }
    gpu.func @slots(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 2, grid = [1, 1, B]>} {
      %i = sympow_tile.range : tensor<8xindex, #sympow_tile.blocked<threads = 2, per_thread = 4>>
      %x = sympow_tile.load %in[%i] contiguous : memref<?xf32> -> tensor<8xf32, #sympow_tile.blocked<threads = 2, per_thread = 4>>
      %first = sympow_tile.slots %x {offset = 0} : tensor<8xf32, #sympow_tile.blocked<threads = 2, per_thread = 4>> -> tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %last = sympow_tile.slots %x {offset = 2} : tensor<8xf32, #sympow_tile.blocked<threads = 2, per_thread = 4>> -> tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %sum = arith.addf %last, %first : tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      %j = sympow_tile.range : tensor<4xindex, #sympow_tile.blocked<threads = 2, per_thread = 2>>
      sympow_tile.store %sum, %out[%j] contiguous : tensor<4xf32, #sympow_tile.blocked<threads = 2, per_thread = 2>>, memref<?xf32>
      gpu.return
    }
  }
}
