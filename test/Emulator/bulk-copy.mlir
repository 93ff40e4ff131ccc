// Bulk copies completing on an mbarrier, two rounds into one buffer: thread
// 0 initializes the barrier (one arrival a phase), a gpu.barrier publishes
// it; each round thread 0 issues four 256-byte copies of `in` and arrives
// announcing their 1024 bytes, every thread waits for the phase (parity 0,
// then 1) and writes out[256 r + i] = 2 * tile[i]. A gpu.barrier between
// the rounds keeps round 2's copies from overwriting what round 1 still
// reads. Two blocks on one worker: each block starts with no mbarrier.
// RUN: sympow-emulate %s --kernel rounds --grid 2 --block 128 --workers 1 --arg f32:512=iota --arg f32:512 --print --counts | FileCheck %s
// CHECK: emulator: ok
// Per block: 8 copies of 256 bytes (one warp instruction each, their
// bytes loaded and as shared store bytes, 2 wavefronts each), 2 x 128 x 2
// workgroup loads; 3 barriers.
// CHECK: global_load_bytes 4096 2048
// CHECK: global_loads 0 0
// CHECK: shared_load_bytes 4096 2048
// CHECK: shared_store_bytes 4096 2048
// CHECK: shared_loads 1024 512
// CHECK: shared_stores 0 0
// CHECK: shared_store_wavefronts 32 16
// CHECK: bulk_copies 16 8
// CHECK: barriers 6 3
// CHECK: distinct global bytes: loaded 2048, stored 2048
// CHECK: arg1 = [0, 2, 4, 6, 8, 10,
// CHECK-SAME: 1018, 1020, 1022]
// @one_waits: only thread 0 waits for the phase; the gpu.barrier after
// its wait orders the copy before everyone's reads.
// RUN: sympow-emulate %s --kernel one_waits --block 128 --arg f32:512=iota --arg f32:512 --print | FileCheck %s --check-prefix=ONE
// ONE: emulator: ok
// ONE: arg1 = [0, 2, 4,
// ONE-SAME: 508, 510, 0, 0,
// The lowering: one runtime call per op (init 0, arrive 1, wait 2), the
// flags naming workgroup (16) or global (0) memory.
// RUN: sympow-opt %s --sympow-gpu-to-emulator | FileCheck %s --check-prefix=LOWER
// LOWER-DAG: func.func private @__sympow_emu_mbarrier(i32, i64, i64, i64, i32, i64, !llvm.ptr)
// LOWER-DAG: func.func private @__sympow_emu_bulk_copy(i64, i64, i64, i32, i64, i64, i64, i32, i64, i64, i64, i64, i32, !llvm.ptr)
// LOWER: func.func @kernels__rounds(
// LOWER-NOT: {{^ +}}sympow_tile.
// LOWER: call @__sympow_emu_mbarrier(%c0_i32{{.*}}, %c16_i32, %c1_i64
// LOWER-NOT: {{^ +}}sympow_tile.
// LOWER: call @__sympow_emu_bulk_copy(%{{.*}}, %c16_i32{{.*}}, %c0_i32{{.*}}, %c16_i32{{.*}})
// LOWER-NOT: {{^ +}}sympow_tile.
// LOWER: call @__sympow_emu_mbarrier(%c1_i32,
// LOWER-NOT: {{^ +}}sympow_tile.
// LOWER: call @__sympow_emu_mbarrier(%c2_i32,
// LOWER-NOT: {{^ +}}sympow_tile.
// LOWER: return

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rounds(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>,
                  %bars: memref<1xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c1024 = arith.constant 1024 : index
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        sympow_tile.mbarrier_init %bars[%c0] count 1
            : memref<1xi64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %round = %c0 to %c2 step %c1 {
        %base = arith.muli %round, %c256 : index
        scf.if %first {
          scf.for %k = %c0 to %c4 step %c1 {
            %to = arith.muli %k, %c64 : index
            %from = arith.addi %base, %to : index
            sympow_tile.bulk_copy %in[%from], %tile[%to], bytes %c256, %bars[%c0]
                : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
                  memref<1xi64, #gpu.address_space<workgroup>>, index
          }
          sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c1024
              : memref<1xi64, #gpu.address_space<workgroup>>
        }
        // Round r waits for phase r: parity r % 2.
        %parity = arith.remui %round, %c2 : index
        sympow_tile.mbarrier_wait %bars[%c0] parity %parity
            : memref<1xi64, #gpu.address_space<workgroup>>
        scf.for %h = %c0 to %c2 step %c1 {
          %off = arith.muli %h, %c128 : index
          %i = arith.addi %tid, %off : index
          %x = memref.load %tile[%i] : memref<256xf32, #gpu.address_space<workgroup>>
          %y = arith.mulf %x, %two : f32
          %o = arith.addi %base, %i : index
          memref.store %y, %out[%o] : memref<?xf32>
        }
        gpu.barrier
      }
      gpu.return
    }

    gpu.func @one_waits(%in: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>,
                  %bars: memref<1xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        sympow_tile.mbarrier_init %bars[%c0] count 1
            : memref<1xi64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.if %first {
        sympow_tile.bulk_copy %in[%c0], %tile[%c0], bytes %c1024, %bars[%c0]
            : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
              memref<1xi64, #gpu.address_space<workgroup>>, index
        sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c1024
            : memref<1xi64, #gpu.address_space<workgroup>>
        sympow_tile.mbarrier_wait %bars[%c0] parity %c0
            : memref<1xi64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %h = %c0 to %c2 step %c1 {
        %off = arith.muli %h, %c128 : index
        %i = arith.addi %tid, %off : index
        %x = memref.load %tile[%i] : memref<256xf32, #gpu.address_space<workgroup>>
        %y = arith.mulf %x, %two : f32
        memref.store %y, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
