// The verifier of sympow_tile.warpgroups (TileOps.td) and the kernel's
// check of its tiles' threads.
// RUN: sympow-opt %s -split-input-file -verify-diagnostics

#p = #sympow_tile.blocked<threads = 128, per_thread = 1>
gpu.module @m {
  gpu.func @column_sum(%out: memref<?xf32>) kernel
      attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
    sympow_tile.warpgroups first 1 count 1 {
      %x = arith.constant dense<1.0> : tensor<128xf32, #p>
      // expected-error @+1 {{inside a warpgroups region: a column_sum (it passes barriers) would wait for or run on threads outside it}}
      %s = sympow_tile.column_sum %x {columns = 1} : tensor<128xf32, #p>
    }
    gpu.return
  }
}

// -----

#p = #sympow_tile.blocked<threads = 128, per_thread = 1>
gpu.module @m {
  gpu.func @outside_tile(%out: memref<?xindex>) kernel
      attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 128, grid = [1, 1, B]>} {
    %t = sympow_tile.range : tensor<128xindex, #p>
    sympow_tile.warpgroups first 0 count 1 {
      // expected-error @+1 {{takes a tile from outside its warpgroups region ('tensor<128xindex, #sympow_tile.blocked<threads = 128, per_thread = 1>>'): tiles outside are spread over other threads; hand values over in workgroup memory}}
      sympow_tile.store %t, %out[%t] : tensor<128xindex, #p>, memref<?xindex>
    }
    gpu.return
  }
}

// -----

#all = #sympow_tile.blocked<threads = 256, per_thread = 1>
gpu.module @m {
  gpu.func @threads() kernel
      attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
    sympow_tile.warpgroups first 1 count 1 {
      // expected-error @+1 {{is spread over 256 threads, its warpgroups region has 128}}
      %t = sympow_tile.range : tensor<256xindex, #all>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @range() kernel
      attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
    // expected-error @+1 {{names warpgroups 1 to 2, the kernel has 256 threads}}
    sympow_tile.warpgroups first 1 count 2 {
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @nested() kernel
      attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 256, grid = [1, 1, B]>} {
    sympow_tile.warpgroups first 0 count 2 {
      // expected-error @+1 {{inside a warpgroups region: another warpgroups region would wait for or run on threads outside it}}
      sympow_tile.warpgroups first 0 count 1 {
      }
    }
    gpu.return
  }
}
