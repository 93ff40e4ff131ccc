// Warpgroup MMA (wgmma, sm_90a) at the thread level: 128 threads stage A
// (64 x 16, K-major core matrices) and B (16 x 16, N-major core matrices)
// in workgroup memory, fence them into the async proxy, and multiply them
// with one m64n16k16 MMA; D goes back to global memory row-major.
// RUN: sympow-opt %s | sympow-opt | FileCheck %s --check-prefix=ROUND
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// ptxas takes it.
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_90a format=bin" | FileCheck %s --check-prefix=BIN
// On the emulator, A = B = iota: row 0 of D is sum_k k (16 k + c) =
// 19840 + 120 c, row 1 50560 + 376 c.
// RUN: sympow-emulate %s --kernel wgmma --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 --print | FileCheck %s --check-prefix=EMU
// A from registers (the RS form), the same product.
// RUN: sympow-emulate %s --kernel register_a --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 --print | FileCheck %s --check-prefix=EMU
// Before sm_90a the same ops run as ldmatrix + mma.sync per warp: the same
// product, and PTX without wgmma.
// RUN: sympow-opt %s --sympow-lower-warpgroup-mma=chip=sm_80 | sympow-emulate - --kernel wgmma --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-lower-warpgroup-mma=chip=sm_80 | sympow-emulate - --kernel register_a --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 --print | FileCheck %s --check-prefix=EMU
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: sympow-opt %s --sympow-gpu-to-binary="chip=sm_80 format=isa" | FileCheck %s --check-prefix=NOWGMMA
// The planted mistakes, each reported:
// RUN: not sympow-emulate %s --kernel no_proxy_fence --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=PROXY
// RUN: not sympow-emulate %s --kernel no_fence --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=FENCE
// RUN: not sympow-emulate %s --kernel early_read --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not sympow-emulate %s --kernel no_commit --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=COMMIT
// RUN: not sympow-emulate %s --kernel wrong_leading --grid 1 --block 128 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=LEADING
// RUN: not sympow-emulate %s --kernel wgmma --grid 1 --block 96 --arg bf16:1024=iota --arg bf16:256=iota --arg f32:1024 2>&1 | FileCheck %s --check-prefix=PARTIAL

// ROUND: sympow_tile.async_proxy_fence
// ROUND: sympow_tile.warpgroup_fence
// ROUND: %[[A:.*]] = sympow_tile.warpgroup_descriptor %{{.*}}[%{{.*}}] swizzle 0 leading 1024 stride 128 : memref<1024xbf16, #gpu.address_space<workgroup>>
// ROUND: %[[D:.*]] = sympow_tile.warpgroup_mma %[[A]], %{{.*}}, %{{.*}} {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
// ROUND: sympow_tile.warpgroup_commit
// ROUND: sympow_tile.warpgroup_wait 0, %[[D]] : vector<8xf32>

// The attributions keep their alignment; the descriptors' fields are
// constants (leading 1024 >> 4 << 16 | stride 128 >> 4 << 32 =
// 34363932672); scale-d is false (accumulate = false), imm-trans-a 0,
// imm-trans-b 1 (transposeB: B N-major).
// PTX: .target sm_90a
// PTX-SAME: .entry wgmma(
// PTX-SAME: .shared .align 16 .b8 __wg_wgmma_0[2048];
// PTX-SAME: fence.proxy.async.shared::cta;
// PTX-SAME: bar.sync {{(\\09)?}}0;
// PTX-SAME: wgmma.fence.sync.aligned;
// PTX-SAME: or.b64 {{(\\09)?}}%rd{{[0-9]+}}, %rd{{[0-9]+}}, 34363932672;
// PTX-SAME: setp.ne.b32 p, 0, 0;
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r{{[0-9]+}}, {{[^}]*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// PTX-SAME: wgmma.commit_group.sync.aligned;
// PTX-SAME: wgmma.wait_group.sync.aligned 0;
// PTX-SAME: st.global.b32

// RS: four 32-bit registers of A, then B's descriptor.
// PTX-SAME: .entry register_a(
// PTX-SAME: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r{{[0-9]+}}, {{[^}]*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;

// BIN: gpu.binary @kernels

// NOWGMMA-NOT: wgmma.{{[a-z]}}
// NOWGMMA-NOT: fence.proxy
// SM80: .target sm_80
// SM80-SAME: .entry wgmma(
// SM80-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// SM80-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// EMU: emulator: ok
// EMU: arg2 = [19840, 19960, 20080, 20200, 20320, 20440, 20560, 20680, 20800, 20920, 21040, 21160, 21280, 21400, 21520, 21640, 50560, 50936,

// PROXY: emulator: race on workgroup memory at byte offset {{[0-9]+}} in kernel 'no_proxy_fence', block (0, 0, 0): wgmma operand A read by sympow_tile.warpgroup_mma at {{.*}}warpgroup-mma.mlir:{{[0-9]+}}:{{[0-9]+}} was written by thread ({{.*}}) (memref.store at {{.*}}), which ran no fence.proxy.async (sympow_tile.async_proxy_fence) after the write
// FENCE: emulator: wgmma without a wgmma.fence (sympow_tile.warpgroup_fence) since the thread's last wait or its start: sympow_tile.warpgroup_mma at {{.*}} in kernel 'no_fence'
// EARLY: emulator: the result of sympow_tile.warpgroup_mma at {{.*}}warpgroup-mma.mlir:{{[0-9]+}}:{{[0-9]+}} is read at sympow_tile.warpgroup_wait at {{.*}} before its group completed (the wait leaves its group running)
// COMMIT: emulator: the result of sympow_tile.warpgroup_mma at {{.*}} is read at {{.*}} before its group completed (no wgmma.commit_group after it)
// LEADING: emulator: out-of-bounds read of wgmma operand A at workgroup byte offset {{[0-9]+}} of the block's 2560 bytes in kernel 'wrong_leading'
// PARTIAL: emulator: warpgroup MMA in a partial warpgroup in kernel 'wgmma', block (0, 0, 0), thread ({{[0-9]+}}, 0, 0): sympow_tile.warpgroup_mma at {{.*}} needs blocks of a multiple of 128 threads

!sa = memref<1024xbf16, #gpu.address_space<workgroup>>
!sb = memref<256xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // A[m][k] (row-major in global) to (m % 8) * 8 + (m / 8) * 64 +
    // (k / 8) * 512 + k % 8: core matrices of 8 rows x 8, the second 8
    // columns 1024 bytes on. B[k][n] to (n / 8) * 128 + n % 8 + (k % 8) * 8
    // + (k / 8) * 64: core matrices of 8 k x 8 n, k + 8 128 bytes on, n + 8
    // 256 bytes on.
    func.func @stage(%a: memref<?xbf16>, %b: memref<?xbf16>, %sa: !sa, %sb: !sb) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %t = gpu.thread_id x
      scf.for %e = %c0 to %c8 step %c1 {
        %t8 = arith.muli %t, %c8 : index
        %i = arith.addi %t8, %e : index
        %m = arith.divui %i, %c16 : index
        %k = arith.remui %i, %c16 : index
        %x = memref.load %a[%i] : memref<?xbf16>
        %m0 = arith.remui %m, %c8 : index
        %m1 = arith.divui %m, %c8 : index
        %k0 = arith.remui %k, %c8 : index
        %k1 = arith.divui %k, %c8 : index
        %o0 = arith.muli %m0, %c8 : index
        %o1 = arith.muli %m1, %c64 : index
        %o2 = arith.muli %k1, %c512 : index
        %o01 = arith.addi %o0, %o1 : index
        %o012 = arith.addi %o01, %o2 : index
        %o = arith.addi %o012, %k0 : index
        memref.store %x, %sa[%o] : !sa
      }
      scf.for %e = %c0 to %c2 step %c1 {
        %t2 = arith.muli %t, %c2 : index
        %i = arith.addi %t2, %e : index
        %k = arith.divui %i, %c16 : index
        %n = arith.remui %i, %c16 : index
        %x = memref.load %b[%i] : memref<?xbf16>
        %n0 = arith.remui %n, %c8 : index
        %n1 = arith.divui %n, %c8 : index
        %k0 = arith.remui %k, %c8 : index
        %k1 = arith.divui %k, %c8 : index
        %o0 = arith.muli %n1, %c128 : index
        %o1 = arith.muli %k0, %c8 : index
        %o2 = arith.muli %k1, %c64 : index
        %o01 = arith.addi %o0, %o1 : index
        %o012 = arith.addi %o01, %o2 : index
        %o = arith.addi %o012, %n0 : index
        memref.store %x, %sb[%o] : !sb
      }
      return
    }
    // Thread T = 32 w + l holds D[16 w + l / 4 + 8 ((i / 2) % 2)]
    // [8 (i / 4) + 2 (l % 4) + i % 2] in element i.
    func.func @store(%r: vector<8xf32>, %d: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %w = arith.divui %t, %c32 : index
      %l = arith.remui %t, %c32 : index
      %w16 = arith.muli %w, %c16 : index
      %l4 = arith.divui %l, %c4 : index
      %row0 = arith.addi %w16, %l4 : index
      %lm = arith.remui %l, %c4 : index
      %col0 = arith.muli %lm, %c2 : index
      scf.for %i = %c0 to %c8 step %c1 {
        %h = arith.divui %i, %c2 : index
        %h2 = arith.remui %h, %c2 : index
        %h8 = arith.muli %h2, %c8 : index
        %row = arith.addi %row0, %h8 : index
        %q = arith.divui %i, %c4 : index
        %q8 = arith.muli %q, %c8 : index
        %odd = arith.remui %i, %c2 : index
        %c01 = arith.addi %col0, %q8 : index
        %col = arith.addi %c01, %odd : index
        %rowBase = arith.muli %row, %c16 : index
        %at = arith.addi %rowBase, %col : index
        %v = vector.extract %r[%i] : f32 from vector<8xf32>
        memref.store %v, %d[%at] : memref<?xf32>
      }
      return
    }
    gpu.func @wgmma(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    // Thread T = 32 w + l's A registers: element i is A[16 w + l / 4 +
    // 8 ((i / 2) % 2)][8 (i / 4) + 2 (l % 4) + i % 2].
    func.func @fragment(%a: memref<?xbf16>) -> vector<4x2xbf16> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %zeros = arith.constant dense<0.0> : vector<8xbf16>
      %t = gpu.thread_id x
      %w = arith.divui %t, %c32 : index
      %l = arith.remui %t, %c32 : index
      %w16 = arith.muli %w, %c16 : index
      %l4 = arith.divui %l, %c4 : index
      %row0 = arith.addi %w16, %l4 : index
      %lm = arith.remui %l, %c4 : index
      %k0 = arith.muli %lm, %c2 : index
      %f = scf.for %i = %c0 to %c8 step %c1 iter_args(%v = %zeros) -> vector<8xbf16> {
        %h = arith.divui %i, %c2 : index
        %h2 = arith.remui %h, %c2 : index
        %h8 = arith.muli %h2, %c8 : index
        %row = arith.addi %row0, %h8 : index
        %q = arith.divui %i, %c4 : index
        %q8 = arith.muli %q, %c8 : index
        %odd = arith.remui %i, %c2 : index
        %kq = arith.addi %k0, %q8 : index
        %k = arith.addi %kq, %odd : index
        %rowBase = arith.muli %row, %c16 : index
        %at = arith.addi %rowBase, %k : index
        %x = memref.load %a[%at] : memref<?xbf16>
        %u = vector.insert %x, %v[%i] : bf16 into vector<8xbf16>
        scf.yield %u : vector<8xbf16>
      }
      %e = arith.constant dense<0.0> : vector<4x2xbf16>
      %x0 = vector.extract %f[0] : bf16 from vector<8xbf16>
      %r0 = vector.insert %x0, %e[0, 0] : bf16 into vector<4x2xbf16>
      %x1 = vector.extract %f[1] : bf16 from vector<8xbf16>
      %r1 = vector.insert %x1, %r0[0, 1] : bf16 into vector<4x2xbf16>
      %x2 = vector.extract %f[2] : bf16 from vector<8xbf16>
      %r2 = vector.insert %x2, %r1[1, 0] : bf16 into vector<4x2xbf16>
      %x3 = vector.extract %f[3] : bf16 from vector<8xbf16>
      %r3 = vector.insert %x3, %r2[1, 1] : bf16 into vector<4x2xbf16>
      %x4 = vector.extract %f[4] : bf16 from vector<8xbf16>
      %r4 = vector.insert %x4, %r3[2, 0] : bf16 into vector<4x2xbf16>
      %x5 = vector.extract %f[5] : bf16 from vector<8xbf16>
      %r5 = vector.insert %x5, %r4[2, 1] : bf16 into vector<4x2xbf16>
      %x6 = vector.extract %f[6] : bf16 from vector<8xbf16>
      %r6 = vector.insert %x6, %r5[3, 0] : bf16 into vector<4x2xbf16>
      %x7 = vector.extract %f[7] : bf16 from vector<8xbf16>
      %r = vector.insert %x7, %r6[3, 1] : bf16 into vector<4x2xbf16>
      return %r : vector<4x2xbf16>
    }
    gpu.func @register_a(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      %fa = func.call @fragment(%a) : (memref<?xbf16>) -> vector<4x2xbf16>
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %fa, %db, %zero {accumulate = false, transposeB} : vector<4x2xbf16>, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    gpu.func @no_proxy_fence(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      gpu.barrier
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    gpu.func @no_fence(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      sympow_tile.async_proxy_fence
      gpu.barrier
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    // Two groups; waiting with one pending leaves the second running.
    gpu.func @early_read(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %acc2 = sympow_tile.warpgroup_mma %da, %db, %acc {transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 1, %acc2 : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    gpu.func @no_commit(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 1024 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
    // A's K halves 4096 bytes apart: past the buffers' 2560 bytes.
    gpu.func @wrong_leading(%a: memref<?xbf16>, %b: memref<?xbf16>, %d: memref<?xf32>)
        workgroup(%sa: !sa {llvm.align = 16 : i64}, %sb: !sb {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<8xf32>
      func.call @stage(%a, %b, %sa, %sb) : (memref<?xbf16>, memref<?xbf16>, !sa, !sb) -> ()
      sympow_tile.async_proxy_fence
      gpu.barrier
      sympow_tile.warpgroup_fence
      %da = sympow_tile.warpgroup_descriptor %sa[%c0] swizzle 0 leading 4096 stride 128 : !sa
      %db = sympow_tile.warpgroup_descriptor %sb[%c0] swizzle 0 leading 128 stride 256 : !sb
      %acc = sympow_tile.warpgroup_mma %da, %db, %zero {accumulate = false, transposeB} : i64, bf16, vector<8xf32>
      sympow_tile.warpgroup_commit
      %r = sympow_tile.warpgroup_wait 0, %acc : vector<8xf32>
      func.call @store(%r, %d) : (vector<8xf32>, memref<?xf32>) -> ()
      gpu.return
    }
  }
}
