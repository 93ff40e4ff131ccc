// The verifiers of the sympow_tile dialect.
// RUN: sympow-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a tile in #sympow_tile.blocked<threads = 128, per_thread = 1> is 1-D with threads * per_thread = 128 elements}}
func.func private @size(tensor<256xf32, #sympow_tile.blocked<threads = 128, per_thread = 1>>)

// -----

// expected-error @+1 {{per_thread must be at least 1, not 0}}
func.func private @slots(tensor<256xf32, #sympow_tile.blocked<threads = 128, per_thread = 0>>)

// -----

// expected-error @+1 {{a blocked layout spreads over 1 to 1024 threads, not 2048}}
func.func private @threads(tensor<2048xf32, #sympow_tile.blocked<threads = 2048, per_thread = 1>>)

// -----

// expected-error @+1 {{grid z is B (one program per sequence)}}
func.func private @z() attributes {a = #sympow_tile.kernel<threads = 32, grid = [1, 8, 2]>}

// -----

// expected-error @+1 {{grid x is a constant or cdiv(T, n)}}
func.func private @x() attributes {a = #sympow_tile.kernel<threads = 32, grid = [B, 8, B]>}

// -----

// expected-error @+1 {{the grid has 3 dimensions (x, y, z)}}
func.func private @dims() attributes {a = #sympow_tile.kernel<threads = 32, grid = [1, B]>}

// -----

// expected-error @+1 {{cdiv(T, n) needs n >= 1}}
func.func private @cdiv() attributes {a = #sympow_tile.kernel<threads = 32, grid = [cdiv(T, 0), 1, B]>}

// -----

// expected-error @+1 {{"sympow_tile.kernel" marks a gpu.func kernel}}
func.func @notgpu() attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 32, grid = [1, 1, B]>} {
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @threads() kernel attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      // expected-error @+1 {{tile 'tensor<32xindex, #sympow_tile.blocked<threads = 32, per_thread = 1>>' is spread over 32 threads, the kernel has 64}}
      %r = sympow_tile.range : tensor<32xindex, #sympow_tile.blocked<threads = 32, per_thread = 1>>
      gpu.return
    }
  }
}

// -----

func.func @element(%m: memref<?xf64>, %i: tensor<32xindex, #sympow_tile.blocked<threads = 32, per_thread = 1>>) {
  // expected-error @+1 {{'sympow_tile.load' op moves 'tensor<32xf32, #sympow_tile.blocked<threads = 32, per_thread = 1>>' through a buffer of 'f64'}}
  %x = sympow_tile.load %m[%i] : memref<?xf64> -> tensor<32xf32, #sympow_tile.blocked<threads = 32, per_thread = 1>>
  return
}

// -----

func.func @notile(%m: memref<?xf32>, %i: tensor<32xindex>) {
  // expected-error @+1 {{'value' must be tile of any type, but got 'tensor<32xindex>'}}
  sympow_tile.store %i, %m[%i] : tensor<32xindex>, memref<?xf32>
  return
}

// -----

func.func @axis() {
  // expected-error @+1 {{'sympow_tile.program_id' op attribute 'axis' failed to satisfy constraint}}
  %x = sympow_tile.program_id 3
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 32, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @columns(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{columns = 5 must divide the tile's 64 elements}}
  %s = sympow_tile.column_sum %x {columns = 5} : tensor<64xf32, #b2>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
#b4 = #sympow_tile.blocked<threads = 32, per_thread = 4>
func.func @expand(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{expands a tile of one element per thread, not 2}}
  %s = sympow_tile.expand %x : tensor<64xf32, #b2> -> tensor<128xf32, #b4>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 32, per_thread = 1>
#b4 = #sympow_tile.blocked<threads = 64, per_thread = 4>
func.func @run_threads(%x: tensor<32xindex, #b1>) {
  // expected-error @+1 {{keeps the threads: 32 to 64}}
  %s = sympow_tile.run %x : tensor<32xindex, #b1> -> tensor<256xindex, #b4>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @scan_slots(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{segment = 128 must be a power of two up to 32 threads' 2 elements (one warp), with R a power of two}}
  %s = sympow_tile.scan %x {segment = 128} : tensor<64xf32, #b2>
  return
}

// -----

#b3 = #sympow_tile.blocked<threads = 32, per_thread = 3>
func.func @scan_three(%x: tensor<96xf32, #b3>) {
  // expected-error @+1 {{segment = 4 must be a power of two up to 32 threads' 3 elements (one warp), with R a power of two}}
  %s = sympow_tile.scan %x {segment = 4} : tensor<96xf32, #b3>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 48, per_thread = 1>
func.func @scan_warps(%x: tensor<48xf32, #b1>) {
  // expected-error @+1 {{needs whole warps: 48 threads}}
  %s = sympow_tile.scan %x {segment = 16} : tensor<48xf32, #b1>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
func.func @scan_segment(%x: tensor<64xf32, #b1>) {
  // expected-error @+1 {{segment = 64 must be a power of two up to 32 threads' 1 elements (one warp), with R a power of two}}
  %s = sympow_tile.scan %x {segment = 64} : tensor<64xf32, #b1>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
func.func @segment_reduce_across_warps(%x: tensor<64xf32, #b1>) {
  // expected-error @+1 {{segment = 64 must be a power of two up to 32 threads' 1 elements (one warp), with R a power of two}}
  %s = sympow_tile.segment_reduce sum %x {segment = 64} : tensor<64xf32, #b1>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @segment_reduce_not_power_of_two(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{segment = 6 must be a power of two up to 32 threads' 2 elements (one warp), with R a power of two}}
  %s = sympow_tile.segment_reduce max %x {segment = 6} : tensor<64xf32, #b2>
  return
}

// -----

func.func @exp2_ftz_of_f16(%x: f16) -> f16 {
  // expected-error @+1 {{operand #0 must be f32, or a vector or tile of f32}}
  %e = sympow_tile.exp2_ftz %x : f16
  return %e : f16
}

// -----

#b1 = #sympow_tile.blocked<threads = 4, per_thread = 1>
func.func @async_copy_to_global(%src: memref<?xf32>, %dst: memref<?xf32>, %at: tensor<4xindex, #b1>) {
  // expected-error @+1 {{copies into workgroup memory, not 'memref<?xf32>'}}
  sympow_tile.async_copy %src[%at], %dst[%at] elements 4 : memref<?xf32>, memref<?xf32>, tensor<4xindex, #b1>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 4, per_thread = 1>
func.func @async_copy_run(%src: memref<?xbf16>, %dst: memref<64xbf16, #gpu.address_space<workgroup>>, %at: tensor<4xindex, #b1>) {
  // expected-error @+1 {{copies runs of 4, 8 or 16 bytes, not 12 (6 x 'bf16')}}
  sympow_tile.async_copy %src[%at], %dst[%at] elements 6 : memref<?xbf16>, memref<64xbf16, #gpu.address_space<workgroup>>, tensor<4xindex, #b1>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 4, per_thread = 2>
func.func @async_copy_starts(%src: memref<?xf32>, %dst: memref<64xf32, #gpu.address_space<workgroup>>, %at: tensor<8xindex, #b2>) {
  // expected-error @+1 {{takes one start per thread, not 2}}
  sympow_tile.async_copy %src[%at], %dst[%at] elements 4 : memref<?xf32>, memref<64xf32, #gpu.address_space<workgroup>>, tensor<8xindex, #b2>
  return
}

// -----

#mma = #sympow_tile.mma<warps = [2, 2]>
func.func @row_stride_untransposed(%g: memref<?xf32>, %at: index) {
  // expected-error @+1 {{takes a row_stride with `transposed` only}}
  %x = sympow_tile.matrix_load %g[%at] stride 0 row_stride 3 : memref<?xf32> -> tensor<32x16xf32, #mma>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
#b2w = #sympow_tile.blocked<threads = 16, per_thread = 8>
func.func @interleave(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{keeps the threads: 32 to 16}}
  %s = sympow_tile.interleave %x, %x : tensor<64xf32, #b2> -> tensor<128xf32, #b2w>
  return
}

// -----

#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @interleave(%x: tensor<64xf32, #b2>) {
  // expected-error @+1 {{makes runs of twice 2 elements, not 2}}
  %s = sympow_tile.interleave %x, %x : tensor<64xf32, #b2> -> tensor<64xf32, #b2>
  return
}

// -----

#b4 = #sympow_tile.blocked<threads = 32, per_thread = 4>
#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @slots(%x: tensor<128xf32, #b4>) {
  // expected-error @+1 {{takes slots 3 .. 4 of runs of 4}}
  %s = sympow_tile.slots %x {offset = 3} : tensor<128xf32, #b4> -> tensor<64xf32, #b2>
  return
}

// -----

#b4 = #sympow_tile.blocked<threads = 32, per_thread = 4>
#b2w = #sympow_tile.blocked<threads = 16, per_thread = 2>
func.func @slots(%x: tensor<128xf32, #b4>) {
  // expected-error @+1 {{keeps the threads: 32 to 16}}
  %s = sympow_tile.slots %x {offset = 0} : tensor<128xf32, #b4> -> tensor<32xf32, #b2w>
  return
}

// -----

#b4 = #sympow_tile.blocked<threads = 32, per_thread = 4>
#b2 = #sympow_tile.blocked<threads = 32, per_thread = 2>
func.func @slots(%x: tensor<128xf32, #b4>) {
  // expected-error @+1 {{keeps the element type}}
  %s = sympow_tile.slots %x {offset = 0} : tensor<128xf32, #b4> -> tensor<64xf16, #b2>
  return
}

// -----

func.func @arrivals(%counters: memref<?xi64>, %i: index, %epoch: i64) -> i1 {
  // expected-error @+1 {{'sympow_tile.last_arrival' op attribute 'programs' failed to satisfy constraint}}
  %last = sympow_tile.last_arrival %counters[%i] epoch %epoch programs 0 : memref<?xi64>
  return %last : i1
}

// -----

func.func @counterType(%counters: memref<?xi32>, %i: index, %epoch: i64) -> i1 {
  // expected-error @+1 {{'sympow_tile.last_arrival' op operand #0 must be memref of 64-bit signless integer values}}
  %last = sympow_tile.last_arrival %counters[%i] epoch %epoch programs 4 : memref<?xi32>
  return %last : i1
}
