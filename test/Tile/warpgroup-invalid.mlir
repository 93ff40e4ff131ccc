// The verifiers of the warpgroup MMA ops (TileWarpgroupOps.td).
// RUN: sympow-opt %s -split-input-file -verify-diagnostics

func.func @global(%b: memref<?xbf16>, %i: index) -> i64 {
  // expected-error @+1 {{describes workgroup memory, not 'memref<?xbf16>'}}
  %d = sympow_tile.warpgroup_descriptor %b[%i] swizzle 0 leading 128 stride 128 : memref<?xbf16>
  return %d : i64
}

// -----

func.func @swizzle(%b: memref<1024xbf16, #gpu.address_space<workgroup>>, %i: index) -> i64 {
  // expected-error @+1 {{swizzle is 0 (none), 32, 64 or 128 bytes, not 16}}
  %d = sympow_tile.warpgroup_descriptor %b[%i] swizzle 16 leading 128 stride 128 : memref<1024xbf16, #gpu.address_space<workgroup>>
  return %d : i64
}

// -----

func.func @leading(%b: memref<1024xbf16, #gpu.address_space<workgroup>>, %i: index) -> i64 {
  // expected-error @+1 {{leading is a multiple of 16 bytes up to 262128, not 24}}
  %d = sympow_tile.warpgroup_descriptor %b[%i] swizzle 0 leading 24 stride 128 : memref<1024xbf16, #gpu.address_space<workgroup>>
  return %d : i64
}

// -----

func.func @stride(%b: memref<1024xbf16, #gpu.address_space<workgroup>>, %i: index) -> i64 {
  // expected-error @+1 {{stride is a multiple of 16 bytes up to 262128, not 262144}}
  %d = sympow_tile.warpgroup_descriptor %b[%i] swizzle 0 leading 128 stride 262144 : memref<1024xbf16, #gpu.address_space<workgroup>>
  return %d : i64
}

// -----

// A swizzled matrix in an attribution aligned to less than its pattern.
gpu.module @m {
  gpu.func @k() workgroup(%b: memref<1024xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{describes a workgroup attribution aligned to 16 bytes; give it {llvm.align = 1024 : i64} (a matrix starts on 16 bytes, a swizzle pattern on 8 x its bytes)}}
    %d = sympow_tile.warpgroup_descriptor %b[%c0] swizzle 128 leading 16 stride 1024 : memref<1024xbf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() workgroup(%b: memref<1024xbf16, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{describes a workgroup attribution aligned to 0 bytes; give it {llvm.align = 16 : i64}}}
    %d = sympow_tile.warpgroup_descriptor %b[%c0] swizzle 0 leading 128 stride 128 : memref<1024xbf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

func.func @n(%a: i64, %b: i64, %c: vector<6xf32>) -> vector<6xf32> {
  // expected-error @+1 {{N is a multiple of 8 from 8 to 256, not 12 ('vector<6xf32>')}}
  %d = sympow_tile.warpgroup_mma %a, %b, %c : i64, bf16, vector<6xf32>
  return %d : vector<6xf32>
}

// -----

func.func @wide(%a: i64, %b: i64, %c: vector<132xf32>) -> vector<132xf32> {
  // expected-error @+1 {{N is a multiple of 8 from 8 to 256, not 264}}
  %d = sympow_tile.warpgroup_mma %a, %b, %c : i64, bf16, vector<132xf32>
  return %d : vector<132xf32>
}

// -----

func.func @type(%a: i64, %b: i64, %c: vector<8xf32>) -> vector<8xf32> {
  // expected-error @+1 {{multiplies bf16 or f16 (accumulating in f32), not 'f32'}}
  %d = sympow_tile.warpgroup_mma %a, %b, %c : i64, f32, vector<8xf32>
  return %d : vector<8xf32>
}

// -----

func.func @pending(%c: vector<8xf32>) -> vector<8xf32> {
  // expected-error @+1 {{waits with at most 7 groups pending, not 8}}
  %r = sympow_tile.warpgroup_wait 8, %c : vector<8xf32>
  return %r : vector<8xf32>
}

// -----

#mma = #sympow_tile.mma<warps = [2, 2]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @warps(%a: tensor<64x16xbf16, #A>, %b: i64, %c: tensor<64x32xf32, #mma>) -> tensor<64x32xf32, #mma> {
  // expected-error @+1 {{takes an accumulator tile of 16 rows per warp of mma<warps = [4 g, 1]> (64 per warpgroup)}}
  %d = sympow_tile.warpgroup_mma %a, %b, %c : tensor<64x16xbf16, #A>, bf16, tensor<64x32xf32, #mma>
  return %d : tensor<64x32xf32, #mma>
}

// -----

#mma = #sympow_tile.mma<warps = [4, 1]>
#A = #sympow_tile.dot_operand<operand = 0, parent = #mma>
func.func @depth(%a: tensor<64x32xbf16, #A>, %b: i64, %c: tensor<64x32xf32, #mma>) -> tensor<64x32xf32, #mma> {
  // expected-error @+1 {{takes A in a tile kernel as a 'tensor<64x16xbf16>' tile of the accumulator's dot_operand 0}}
  %d = sympow_tile.warpgroup_mma %a, %b, %c : tensor<64x32xbf16, #A>, bf16, tensor<64x32xf32, #mma>
  return %d : tensor<64x32xf32, #mma>
}
