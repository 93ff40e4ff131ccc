// RUN: sympow-opt %s --sympow-gpu-to-emulator -split-input-file -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %x = arith.constant 1.0 : f32
      // expected-error @+1 {{the emulator does not support 'gpu.printf'}}
      gpu.printf "x %f", %x : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<?xf32>, %i: vector<4xindex>, %m: vector<4xi1>) kernel {
      %c0 = arith.constant 0 : index
      %p = arith.constant dense<0.0> : vector<4xf32>
      // expected-error @+1 {{the emulator does not support 'vector.gather' in kernels}}
      %v = vector.gather %out[%c0][%i], %m, %p : memref<?xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<?xf32>) kernel {
      // expected-error @+1 {{the emulator supports memref.alloc in kernels only for statically shaped workgroup memory, not 'memref<16xf32>'}}
      %a = memref.alloc() : memref<16xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %s = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{the emulator needs cp.async tokens to go straight to nvgpu.device_async_create_group, not to 'scf.for'}}
      %t = nvgpu.device_async_copy %out[%c0], %s[%c0], 4
          : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %t) -> (!nvgpu.device.async.token) {
        scf.yield %t : !nvgpu.device.async.token
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{the emulator runs gpu.module kernels itself; host code with gpu.launch_func is not lowered}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// An mbarrier op of a tile kernel (a mask tile): the tile lowering makes it
// one per thread first.
#b1 = #sympow_tile.blocked<threads = 32, per_thread = 1>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%mask: tensor<32xi1, #b1>)
        workgroup(%bars: memref<1xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'sympow_tile.mbarrier_init' op runs on a thread's scalars (lower the tile kernel first)}}
      sympow_tile.mbarrier_init %bars[%c0] count 1 mask %mask
          : memref<1xi64, #gpu.address_space<workgroup>>, tensor<32xi1, #b1>
      gpu.return
    }
  }
}
