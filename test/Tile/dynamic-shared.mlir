// Workgroup arrays past CUDA's static 48 KiB become views of dynamic shared
// memory at 16-byte aligned offsets, and the launch records its size;
// arrays within the limit stay static.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// On the emulator with the recorded size: each thread writes its element
// of both arrays, and reads another thread's back from each.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel large --grid 1 --block 4 --dynamic-shared 57360 --arg f32:8 --print | FileCheck %s --check-prefix=EMU
// EMU: emulator: ok
// EMU: arg0 = [3, 30, 0, 0, 1, 10, 2, 20]

// CHECK-LABEL: gpu.func @large(%{{.*}}: memref<?xf32>) kernel attributes
// CHECK-SAME: dynamic_shared_bytes = 57360 : i64
// CHECK: %[[BUF:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BUF]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10241xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BUF]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @small(
// CHECK-SAME: workgroup(
// CHECK-SAME: dynamic_shared_bytes = 0 : i64
// CHECK-NOT: gpu.dynamic_shared_memory
// The buffer: one symbol, 16-byte aligned, whose size the launch gives.
// PTX: .shared .align 16 .b8 __dynamic_shmem__0;

#b1 = #sympow_tile.blocked<threads = 4, per_thread = 1>

module attributes {gpu.container_module} {
  gpu.module @m {
    // 40964 + 16384 bytes: the second array starts at 40976, 16-byte
    // aligned, and the buffer is 57360 bytes.
    gpu.func @large(%out: memref<?xf32>)
        workgroup(%a: memref<10241xf32, #gpu.address_space<workgroup>>,
                  %b: memref<4096xf32, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<4xindex, #b1>
      %c10 = arith.constant dense<10.0> : tensor<4xf32, #b1>
      %c2 = arith.constant dense<2> : tensor<4xindex, #b1>
      %c3 = arith.constant dense<3> : tensor<4xindex, #b1>
      %c4 = arith.constant dense<4> : tensor<4xindex, #b1>
      %c4095 = arith.constant dense<4095> : tensor<4xindex, #b1>
      %c10240 = arith.constant dense<10240> : tensor<4xindex, #b1>
      // Thread t writes t at the end of a and 10 t at the end of b.
      %ti = arith.index_cast %t : tensor<4xindex, #b1> to tensor<4xi32, #b1>
      %x = arith.uitofp %ti : tensor<4xi32, #b1> to tensor<4xf32, #b1>
      %y = arith.mulf %x, %c10 : tensor<4xf32, #b1>
      %at = arith.subi %c10240, %t : tensor<4xindex, #b1>
      %bt = arith.subi %c4095, %t : tensor<4xindex, #b1>
      sympow_tile.store %x, %a[%at] : tensor<4xf32, #b1>, memref<10241xf32, #gpu.address_space<workgroup>>
      sympow_tile.store %y, %b[%bt] : tensor<4xf32, #b1>, memref<4096xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // Thread t reads thread (t + 3) mod 4's, into out[2 t], out[2 t + 1].
      %s = arith.addi %t, %c3 : tensor<4xindex, #b1>
      %u = arith.remui %s, %c4 : tensor<4xindex, #b1>
      %ra = arith.subi %c10240, %u : tensor<4xindex, #b1>
      %rb = arith.subi %c4095, %u : tensor<4xindex, #b1>
      %xa = sympow_tile.load %a[%ra] : memref<10241xf32, #gpu.address_space<workgroup>> -> tensor<4xf32, #b1>
      %xb = sympow_tile.load %b[%rb] : memref<4096xf32, #gpu.address_space<workgroup>> -> tensor<4xf32, #b1>
      %o = arith.muli %t, %c2 : tensor<4xindex, #b1>
      %c1 = arith.constant dense<1> : tensor<4xindex, #b1>
      %o1 = arith.addi %o, %c1 : tensor<4xindex, #b1>
      sympow_tile.store %xa, %out[%o] : tensor<4xf32, #b1>, memref<?xf32>
      sympow_tile.store %xb, %out[%o1] : tensor<4xf32, #b1>, memref<?xf32>
      gpu.return
    }

    gpu.func @small(%out: memref<?xf32>)
        workgroup(%a: memref<16xf32, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 4, grid = [1, 1, B]>} {
      %t = sympow_tile.range : tensor<4xindex, #b1>
      %ti = arith.index_cast %t : tensor<4xindex, #b1> to tensor<4xi32, #b1>
      %x = arith.uitofp %ti : tensor<4xi32, #b1> to tensor<4xf32, #b1>
      sympow_tile.store %x, %a[%t] : tensor<4xf32, #b1>, memref<16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = sympow_tile.load %a[%t] : memref<16xf32, #gpu.address_space<workgroup>> -> tensor<4xf32, #b1>
      sympow_tile.store %y, %out[%t] : tensor<4xf32, #b1>, memref<?xf32>
      gpu.return
    }
  }
}
