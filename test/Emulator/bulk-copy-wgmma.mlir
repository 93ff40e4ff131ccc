// A warpgroup MMA on operands that bulk copies bring: thread 0 copies A
// (64 x 16 bf16, K-major without swizzle, as the global buffer holds it)
// and B (16 x 8) and arrives announcing their 2304 bytes; after the wait
// the MMA reads them with no fence.proxy.async (a bulk copy is the async
// proxy's own write). All ones: every result is 16.
// RUN: sympow-emulate %s --kernel mma --block 128 --arg bf16:1024=1 --arg bf16:128=1 --arg f32:512 --print | FileCheck %s
// CHECK: emulator: ok
// CHECK: arg2 = [{{(16, )+}}16]
// The same with the wait after the MMA: the MMA reads A before the thread
// saw the copies' phase complete.
// RUN: not sympow-emulate %s --kernel early --block 128 --arg bf16:1024=1 --arg bf16:128=1 --arg f32:512 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: emulator: race on workgroup memory at byte offset 0 in kernel 'early', block (0, 0, 0): read by thread (0, 0, 0) (sympow_tile.warpgroup_mma at {{.*}}bulk-copy-wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}) of bytes the bulk copy of thread (0, 0, 0) (sympow_tile.bulk_copy at {{.*}}) writes, before this thread waited for phase 0 of the mbarrier at workgroup offset 2304 (an mbarrier_wait with parity 0 once the phase completed)

!sa = memref<1024xbf16, #gpu.address_space<workgroup>>
!sb = memref<128xbf16, #gpu.address_space<workgroup>>
!bars = memref<1xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64},
                  %bars: !bars) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c256 = arith.constant 256 : index
      %c2048 = arith.constant 2048 : index
      %c2304 = arith.constant 2304 : index
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        sympow_tile.mbarrier_init %bars[%c0] count 1 : !bars
      }
      gpu.barrier
      scf.if %first {
        sympow_tile.bulk_copy %a[%c0], %sa[%c0], bytes %c2048, %bars[%c0]
            : memref<?xbf16>, !sa, !bars, index
        sympow_tile.bulk_copy %b[%c0], %sb[%c0], bytes %c256, %bars[%c0]
            : memref<?xbf16>, !sb, !bars, index
        sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c2304 : !bars
      }
      sympow_tile.mbarrier_wait %bars[%c0] parity %c0 : !bars
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 128 : !sb
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false} : i64, bf16, vector<4xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<4xf32>
      %base = arith.muli %t, %c4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %v = vector.extract %r[%i] : f32 from vector<4xf32>
        %at = arith.addi %base, %i : index
        memref.store %v, %d[%at] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @early(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64},
                  %bars: !bars) kernel {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c2048 = arith.constant 2048 : index
      %c2304 = arith.constant 2304 : index
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        sympow_tile.mbarrier_init %bars[%c0] count 1 : !bars
      }
      gpu.barrier
      scf.if %first {
        sympow_tile.bulk_copy %a[%c0], %sa[%c0], bytes %c2048, %bars[%c0]
            : memref<?xbf16>, !sa, !bars, index
        sympow_tile.bulk_copy %b[%c0], %sb[%c0], bytes %c256, %bars[%c0]
            : memref<?xbf16>, !sb, !bars, index
        sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c2304 : !bars
      }
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 128 : !sb
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false} : i64, bf16, vector<4xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<4xf32>
      sympow_tile.mbarrier_wait %bars[%c0] parity %c0 : !bars
      %v = vector.extract %r[0] : f32 from vector<4xf32>
      memref.store %v, %d[%t] : memref<?xf32>
      gpu.return
    }
  }
}
