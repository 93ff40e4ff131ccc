// sympow_tile.mbarrier_* and bulk_copy in a tile kernel of 64 threads:
// thread 0 initializes a barrier (one arrival a phase); threads 0 and 1
// each copy 64 floats of `in` (256 bytes) into workgroup memory, thread 0
// in one copy, thread 1 as `repeat 2` copies of 32 floats, and arrive with
// their bytes; everyone waits for phase 0 and writes the tile doubled.
// RUN: sympow-opt %s | sympow-opt | FileCheck %s --check-prefix=ROUND
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | FileCheck %s
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel rounds --grid 1 --block 64 --arg f32:128=iota --arg f32:128 --print --counts | FileCheck %s --check-prefix=EMU
// sm_90a: bulk copies with transaction counts; ptxas takes it.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SM90
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=bin" | FileCheck %s --check-prefix=BIN
// sm_80: the copies as 16-byte cp.async that arrive on the barrier; the
// same results on the emulator from that lowering's cp.asyncs.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-lower-bulk-copies=chip=sm_80 | FileCheck %s --check-prefix=LOWER80
// @elected: one thread's region issues the copies (two of 256 bytes at
// %in[64 i], i = 0, 1: its index math one muli) and the arrival.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu | sympow-emulate - --kernel elected --grid 1 --block 64 --arg f32:128=iota --arg f32:128 --print --counts | FileCheck %s --check-prefix=ELECT
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=ELECT90
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu --sympow-lower-bulk-copies=chip=sm_80 | FileCheck %s --check-prefix=ELECT80
// A tile-level op left for a target's lowering is an error.
// RUN: not sympow-opt %s --sympow-lower-bulk-copies 2>&1 | FileCheck %s --check-prefix=TILE

// ROUND: sympow_tile.mbarrier_init %{{.*}}[%{{.*}}] count 2 mask %{{.*}} : memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xi1, #{{.*}}>
// ROUND: sympow_tile.bulk_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], bytes %{{.*}}, %{{.*}}[%{{.*}}] mask %{{.*}} repeat 2 source_stride 32 dest_stride 32 : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xindex, #{{.*}}>, tensor<64xi1, #{{.*}}>
// ROUND: sympow_tile.mbarrier_arrive %{{.*}}[%{{.*}}] expect_tx %{{.*}} mask %{{.*}} : memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xi1, #{{.*}}>
// ROUND: sympow_tile.mbarrier_wait %{{.*}}[%{{.*}}] parity %{{.*}} : memref<1xi64, #gpu.address_space<workgroup>>

// Each thread runs the ops on its scalars where its mask holds.
// CHECK-LABEL: gpu.func @rounds
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: sympow_tile.mbarrier_init %{{.*}}[%{{.*}}] count 2 : memref<1xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: sympow_tile.bulk_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], bytes %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: sympow_tile.bulk_copy {{.*}} repeat 2 source_stride 32 dest_stride 32 : {{.*}}, index
// CHECK: sympow_tile.mbarrier_arrive %{{.*}}[%{{.*}}] expect_tx %{{.*}} : memref<1xi64, #gpu.address_space<workgroup>>
// CHECK-NOT: scf.if
// CHECK: sympow_tile.mbarrier_wait %{{.*}}[%{{.*}}] parity %{{.*}} : memref<1xi64, #gpu.address_space<workgroup>>

// EMU: emulator: ok
// Three copies: thread 0's and thread 1's two.
// EMU: bulk_copies 3 3
// EMU: arg1 = [0, 2, 4, 6,
// EMU-SAME: 250, 252, 254]

// SM90: .target sm_90a
// SM90-SAME: mbarrier.init.shared{{(::cta)?}}.b64 {{[^;]*}}, %r{{[0-9]+}};
// The destination and the barrier as 32-bit shared addresses.
// SM90-SAME: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
// SM90-SAME: mbarrier.arrive.expect_tx.shared{{(::cta)?}}.b64
// SM90-SAME: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// SM90-NOT: cp.async.cg

// BIN: gpu.binary

// Before sm_90: no bulk copies, no transaction counts.
// SM80: .target sm_80
// SM80-SAME: mbarrier.init.shared{{(::cta)?}}.b64
// SM80-SAME: cp.async.cg.shared.global [{{[^]]*}}], [%rd{{[0-9]+}}{{[^]]*}}], 16;
// SM80-SAME: cp.async.mbarrier.arrive.shared{{(::cta)?}}.b64
// SM80-SAME: mbarrier.arrive.shared{{(::cta)?}}.b64
// SM80-SAME: mbarrier.test_wait.parity.shared{{(::cta)?}}.b64
// SM80-NOT: cp.async.bulk
// SM80-NOT: expect_tx

// LOWER80: scf.for
// LOWER80: nvgpu.device_async_copy {{.*}}, 4 {bypassL1}
// LOWER80: nvvm.cp.async.mbarrier.arrive
// LOWER80: nvvm.mbarrier.arrive
// LOWER80: scf.while

// The region's arithmetic counts as warp instructions (32 thread
// operations): int_alu = 32 (its muli) + 2 x 64 (each region's test of
// the thread) + 66 (the mbarrier ops: init, arrive, 64 waits) + 64 (the
// kernel's own muli).
// ELECT: emulator: ok
// ELECT: int_alu 290 290
// ELECT: bulk_copies 2 2
// ELECT: arg1 = [0, 2, 4, 6,
// ELECT-SAME: 250, 252, 254]

// sm_90a: warp 0, then an elected lane.
// ELECT90: .entry elected(
// ELECT90-SAME: elect.sync
// ELECT90-SAME: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes

// Before sm_90: warp 0, its lanes sharing each copy's 16-byte pieces (lane
// l the pieces l, l + 32, ...), the mbarrier ops on lane 0.
// ELECT80-LABEL: gpu.func @elected
// ELECT80-NOT: nvvm.elect.sync
// ELECT80: %[[T:.*]] = gpu.thread_id x
// ELECT80: %[[W:.*]] = arith.divui %[[T]], %c32
// ELECT80: %[[WARP0:.*]] = arith.cmpi eq, %[[W]], %c0
// ELECT80: scf.if %[[WARP0]] {
// ELECT80: %[[L:.*]] = arith.remui %{{.*}}, %c32
// ELECT80: %[[LANE0:.*]] = arith.cmpi eq, %[[L]], %c0
// ELECT80: scf.if %[[LANE0]] {
// ELECT80: nvvm.mbarrier.init
// ELECT80: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// ELECT80: scf.for
// ELECT80: scf.for
// ELECT80: arith.addi %[[LANE]],
// ELECT80: nvgpu.device_async_copy
// ELECT80: nvvm.cp.async.mbarrier.arrive
// ELECT80: scf.if
// ELECT80: nvvm.mbarrier.arrive

// TILE: error: 'sympow_tile.mbarrier_init' op is lowered on a thread's scalars (lower the tile kernel first)

#b1 = #sympow_tile.blocked<threads = 64, per_thread = 1>
#b2 = #sympow_tile.blocked<threads = 64, per_thread = 2>

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rounds(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<128xf32, #gpu.address_space<workgroup>>,
                  %bars: memref<1xi64, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %t = sympow_tile.range : tensor<64xindex, #b1>
      %zero = arith.constant dense<0> : tensor<64xindex, #b1>
      %one = arith.constant dense<1> : tensor<64xindex, #b1>
      %first = arith.cmpi eq, %t, %zero : tensor<64xindex, #b1>
      %second = arith.cmpi eq, %t, %one : tensor<64xindex, #b1>
      %two1 = arith.constant dense<2> : tensor<64xindex, #b1>
      %issues = arith.cmpi ult, %t, %two1 : tensor<64xindex, #b1>
      sympow_tile.mbarrier_init %bars[%c0] count 2 mask %first
          : memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xi1, #b1>
      gpu.barrier
      // Thread t (0, 1) copies floats [64 t, 64 t + 64).
      %c64 = arith.constant dense<64> : tensor<64xindex, #b1>
      %start = arith.muli %t, %c64 : tensor<64xindex, #b1>
      %whole = arith.constant dense<256> : tensor<64xindex, #b1>
      %half = arith.constant dense<128> : tensor<64xindex, #b1>
      sympow_tile.bulk_copy %in[%start], %tile[%start], bytes %whole, %bars[%c0] mask %first
          : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>,
            memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xindex, #b1>, tensor<64xi1, #b1>
      sympow_tile.bulk_copy %in[%start], %tile[%start], bytes %half, %bars[%c0] mask %second
          repeat 2 source_stride 32 dest_stride 32
          : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>,
            memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xindex, #b1>, tensor<64xi1, #b1>
      %bytes = arith.constant 256 : index
      sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %bytes mask %issues
          : memref<1xi64, #gpu.address_space<workgroup>>, tensor<64xi1, #b1>
      sympow_tile.mbarrier_wait %bars[%c0] parity %c0
          : memref<1xi64, #gpu.address_space<workgroup>>
      %two = arith.constant dense<2> : tensor<64xindex, #b1>
      %at1 = arith.muli %t, %two : tensor<64xindex, #b1>
      %at = sympow_tile.run %at1 : tensor<64xindex, #b1> -> tensor<128xindex, #b2>
      %x = sympow_tile.load %tile[%at] contiguous : memref<128xf32, #gpu.address_space<workgroup>> -> tensor<128xf32, #b2>
      %y = arith.addf %x, %x : tensor<128xf32, #b2>
      sympow_tile.store %y, %out[%at] contiguous : tensor<128xf32, #b2>, memref<?xf32>
      gpu.return
    }
    gpu.func @elected(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<128xf32, #gpu.address_space<workgroup>>,
                  %bars: memref<1xi64, #gpu.address_space<workgroup>>) kernel
        attributes {sympow_tile.kernel = #sympow_tile.kernel<threads = 64, grid = [1, 1, B]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %c512 = arith.constant 512 : index
      sympow_tile.elected {
        sympow_tile.mbarrier_init %bars[%c0] count 1 : memref<1xi64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      sympow_tile.elected {
        %second = arith.muli %c1, %c64 : index
        sympow_tile.bulk_copy %in[%c0], %tile[%c0], bytes %c256, %bars[%c0]
            : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>,
              memref<1xi64, #gpu.address_space<workgroup>>, index
        sympow_tile.bulk_copy %in[%second], %tile[%second], bytes %c256, %bars[%c0]
            : memref<?xf32>, memref<128xf32, #gpu.address_space<workgroup>>,
              memref<1xi64, #gpu.address_space<workgroup>>, index
        sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c512 : memref<1xi64, #gpu.address_space<workgroup>>
      }
      sympow_tile.mbarrier_wait %bars[%c0] parity %c0
          : memref<1xi64, #gpu.address_space<workgroup>>
      %t = sympow_tile.range : tensor<64xindex, #b1>
      %two = arith.constant dense<2> : tensor<64xindex, #b1>
      %at1 = arith.muli %t, %two : tensor<64xindex, #b1>
      %at = sympow_tile.run %at1 : tensor<64xindex, #b1> -> tensor<128xindex, #b2>
      %x = sympow_tile.load %tile[%at] contiguous : memref<128xf32, #gpu.address_space<workgroup>> -> tensor<128xf32, #b2>
      %y = arith.addf %x, %x : tensor<128xf32, #b2>
      sympow_tile.store %y, %out[%at] contiguous : tensor<128xf32, #b2>, memref<?xf32>
      gpu.return
    }
  }
}
