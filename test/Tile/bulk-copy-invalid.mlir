// The verifiers of the mbarrier and bulk-copy ops (TileBulkCopyOps.td).
// RUN: sympow-opt %s -split-input-file -verify-diagnostics

func.func @global_barrier(%b: memref<2xi64>, %i: index) {
  // expected-error @+1 {{takes its mbarriers from a static workgroup buffer of i64, not 'memref<2xi64>'}}
  sympow_tile.mbarrier_init %b[%i] count 1 : memref<2xi64>
  return
}

// -----

func.func @outside(%b: memref<2xi64, #gpu.address_space<workgroup>>) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{mbarrier 2 is outside the 2 of 'memref<2xi64, #gpu.address_space<workgroup>>'}}
  sympow_tile.mbarrier_init %b[%c2] count 1 : memref<2xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @count(%b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{count must be below 2^20 (PTX's limit), not 1048576}}
  sympow_tile.mbarrier_init %b[%i] count 1048576 : memref<2xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @tx(%b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  %n = arith.constant 1048576 : index
  // expected-error @+1 {{expect_tx must be 0 to 2^20 - 1 bytes (PTX's transaction count), not 1048576}}
  sympow_tile.mbarrier_arrive %b[%i] expect_tx %n : memref<2xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @parity(%b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{waits for parity 0 or 1, not 2}}
  sympow_tile.mbarrier_wait %b[%i] parity %c2 : memref<2xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @into_global(%src: memref<?xf32>, %dst: memref<?xf32>,
                       %b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  %n = arith.constant 64 : index
  // expected-error @+1 {{copies into workgroup memory, not 'memref<?xf32>'}}
  sympow_tile.bulk_copy %src[%i], %dst[%i], bytes %n, %b[%i]
      : memref<?xf32>, memref<?xf32>, memref<2xi64, #gpu.address_space<workgroup>>, index
  return
}

// -----

func.func @types(%src: memref<?xf16>, %dst: memref<64xf32, #gpu.address_space<workgroup>>,
                 %b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  %n = arith.constant 64 : index
  // expected-error @+1 {{copies 'f16' into a buffer of 'f32'}}
  sympow_tile.bulk_copy %src[%i], %dst[%i], bytes %n, %b[%i]
      : memref<?xf16>, memref<64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>, index
  return
}

// -----

func.func @bytes(%src: memref<?xf32>, %dst: memref<64xf32, #gpu.address_space<workgroup>>,
                 %b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index) {
  %n = arith.constant 24 : index
  // expected-error @+1 {{copies a positive multiple of 16 bytes, not 24}}
  sympow_tile.bulk_copy %src[%i], %dst[%i], bytes %n, %b[%i]
      : memref<?xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>, index
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>
func.func @per_thread(%src: memref<?xf32>, %dst: memref<64xf32, #gpu.address_space<workgroup>>,
                      %b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index,
                      %at: tensor<128xindex, #b2>, %m: tensor<128xi1, #b2>) {
  // expected-error @+1 {{takes its starts and sizes as a tile of one element per thread (a blocked layout with per_thread = 1)}}
  sympow_tile.bulk_copy %src[%at], %dst[%at], bytes %at, %b[%i] mask %m
      : memref<?xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>, tensor<128xindex, #b2>, tensor<128xi1, #b2>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
func.func @scalar_mask(%src: memref<?xf32>, %dst: memref<64xf32, #gpu.address_space<workgroup>>,
                       %b: memref<2xi64, #gpu.address_space<workgroup>>, %i: index,
                       %m: tensor<64xi1, #b1>) {
  %n = arith.constant 64 : index
  // expected-error @+1 {{with a mask takes its starts and sizes as tiles (one per thread)}}
  sympow_tile.bulk_copy %src[%i], %dst[%i], bytes %n, %b[%i] mask %m
      : memref<?xf32>, memref<64xf32, #gpu.address_space<workgroup>>, memref<2xi64, #gpu.address_space<workgroup>>, index, tensor<64xi1, #b1>
  return
}

// -----

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
func.func @elected_tile(%m: tensor<64xi1, #b1>) {
  // expected-error @+1 {{runs on one thread's scalars: its body takes no tiles, but has arith.xori}}
  sympow_tile.elected {
    %n = arith.xori %m, %m : tensor<64xi1, #b1>
  }
  return
}
