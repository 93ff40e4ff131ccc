// The bulk-copy kernel of bulk-copy.mlir (one round, or two) with one
// mistake planted in each kernel; each is reported with its op and
// location, and the launch fails.
//
// wrong_parity: round 2 waits with parity 0 again. The copies land at
// issue, so thread 0's arrival completes phase 1 before anyone waits, and
// parity 0 then waits for phase 2, on which no thread arrives: a hang (on
// a GPU the wait may as well return at once, on the old contents).
// RUN: not sympow-emulate %s --kernel wrong_parity --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=PARITY
// PARITY: emulator: mbarrier hang in kernel 'wrong_parity', block (0, 0, 0): 128 threads (first (0, 0, 0)) wait at sympow_tile.mbarrier_wait at {{.*}}bulk-copy-mistakes.mlir:{{[0-9]+}}:{{[0-9]+}} with parity 0 for phase 2 of the mbarrier at workgroup offset 1024 (2 phases completed; 1 of 1 arrivals pending, no transaction bytes pending); nothing else can run
//
// no_expect_tx: the arrival announces no bytes: the copies' 1024 bytes
// leave the transaction count at -1024 and the phase never completes.
// RUN: not sympow-emulate %s --kernel no_expect_tx --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=NOTX
// NOTX: emulator: mbarrier hang in kernel 'no_expect_tx', block (0, 0, 0): 128 threads (first (0, 0, 0)) wait at sympow_tile.mbarrier_wait at {{.*}} with parity 0 for phase 0 of the mbarrier at workgroup offset 1024 (0 phases completed; 0 of 1 arrivals pending, copies brought 1024 bytes more than expect_tx announced); nothing else can run
//
// too_much_tx: expect_tx announces 2048 bytes, the copies bring 1024.
// RUN: not sympow-emulate %s --kernel too_much_tx --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=MORETX
// MORETX: emulator: mbarrier hang in kernel 'too_much_tx', block (0, 0, 0): 128 threads (first (0, 0, 0)) wait at sympow_tile.mbarrier_wait at {{.*}} with parity 0 for phase 0 of the mbarrier at workgroup offset 1024 (0 phases completed; 0 of 1 arrivals pending, 1024 transaction bytes announced and not copied); nothing else can run
//
// early_read: every thread reads the tile before its wait (one report per
// pair of ops: thread 0's).
// RUN: not sympow-emulate %s --kernel early_read --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: emulator: race on workgroup memory at byte offset 0 in kernel 'early_read', block (0, 0, 0): read by thread (0, 0, 0) (memref.load at {{.*}}bulk-copy-mistakes.mlir:{{[0-9]+}}:{{[0-9]+}}) of bytes the bulk copy of thread (0, 0, 0) (sympow_tile.bulk_copy at {{.*}}bulk-copy-mistakes.mlir:{{[0-9]+}}:{{[0-9]+}}) writes, before this thread waited for phase 0 of the mbarrier at workgroup offset 1024 (an mbarrier_wait with parity 0 once the phase completed)
// EARLY-NOT: emulator:
//
// no_init_barrier: no gpu.barrier between thread 0's mbarrier_init and the
// other threads' waits.
// RUN: not sympow-emulate %s --kernel no_init_barrier --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: emulator: race on workgroup memory at byte offset 1024 in kernel 'no_init_barrier', block (0, 0, 0): write by thread (0, 0, 0) (sympow_tile.mbarrier_init at {{.*}}) and read by thread (1, 0, 0) (sympow_tile.mbarrier_wait at {{.*}}) with no barrier between them
//
// late_init: thread 127 initializes, with no gpu.barrier after, so thread
// 0 copies on a barrier not yet initialized.
// RUN: not sympow-emulate %s --kernel late_init --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=LATE
// LATE: emulator: the mbarrier at workgroup offset 1024 is used before mbarrier_init: sympow_tile.bulk_copy at {{.*}} (no thread of the block initialized it) in kernel 'late_init', block (0, 0, 0), thread (0, 0, 0)
//
// misaligned: the copies start 8 bytes into the tile.
// RUN: not sympow-emulate %s --kernel misaligned --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: emulator: misaligned bulk copy destination address in kernel 'misaligned', block (0, 0, 0), thread (0, 0, 0): 0x{{[0-9a-f]+}} is not a multiple of 16 bytes: sympow_tile.bulk_copy at {{.*}}bulk-copy-mistakes.mlir:{{[0-9]+}}:{{[0-9]+}}
//
// extra_arrival: thread 0 arrives twice on a phase that expects one
// arrival, before the copies bring the bytes the first announced.
// RUN: not sympow-emulate %s --kernel extra_arrival --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: emulator: more arrivals on phase 0 of the mbarrier at workgroup offset 1024 than the 1 it expects (sympow_tile.mbarrier_init at {{.*}}; 1024 transaction bytes announced and not copied): sympow_tile.mbarrier_arrive at {{.*}} in kernel 'extra_arrival', block (0, 0, 0), thread (0, 0, 0)
//
// refill_early: no gpu.barrier ends the rounds. Thread 0 runs through both
// (its copies land at once) before the others wait for phase 0, which
// parity 0 no longer names: they wait for phase 2, two behind. (Had they
// been ahead, round 2's copies would race with their reads of round 1.)
// RUN: not sympow-emulate %s --kernel refill_early --block 128 --arg f32:512=iota --arg f32:512 2>&1 | FileCheck %s --check-prefix=REFILL
// REFILL: emulator: mbarrier hang in kernel 'refill_early', block (0, 0, 0): 1 thread (first (0, 0, 0)) exited; 127 threads (first (1, 0, 0)) wait at sympow_tile.mbarrier_wait at {{.*}} with parity 0 for phase 2 of the mbarrier at workgroup offset 1024 (2 phases completed; 1 of 1 arrivals pending, no transaction bytes pending), having seen only 0 complete (a waiter more than one phase behind waits for a later phase than it means); nothing else can run

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wrong_parity(%in: memref<?xf32>, %out: memref<?xf32>)
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
        %parity = arith.constant 0 : index
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
    gpu.func @no_expect_tx(%in: memref<?xf32>, %out: memref<?xf32>)
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
      scf.for %round = %c0 to %c1 step %c1 {
        %base = arith.muli %round, %c256 : index
        scf.if %first {
          scf.for %k = %c0 to %c4 step %c1 {
            %to = arith.muli %k, %c64 : index
            %from = arith.addi %base, %to : index
            sympow_tile.bulk_copy %in[%from], %tile[%to], bytes %c256, %bars[%c0]
                : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
                  memref<1xi64, #gpu.address_space<workgroup>>, index
          }
          sympow_tile.mbarrier_arrive %bars[%c0]
              : memref<1xi64, #gpu.address_space<workgroup>>
        }
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
    gpu.func @too_much_tx(%in: memref<?xf32>, %out: memref<?xf32>)
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
      %c2048 = arith.constant 2048 : index
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        sympow_tile.mbarrier_init %bars[%c0] count 1
            : memref<1xi64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %round = %c0 to %c1 step %c1 {
        %base = arith.muli %round, %c256 : index
        scf.if %first {
          scf.for %k = %c0 to %c4 step %c1 {
            %to = arith.muli %k, %c64 : index
            %from = arith.addi %base, %to : index
            sympow_tile.bulk_copy %in[%from], %tile[%to], bytes %c256, %bars[%c0]
                : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
                  memref<1xi64, #gpu.address_space<workgroup>>, index
          }
          sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c2048
              : memref<1xi64, #gpu.address_space<workgroup>>
        }
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
    gpu.func @early_read(%in: memref<?xf32>, %out: memref<?xf32>)
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
      scf.for %round = %c0 to %c1 step %c1 {
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
        scf.for %h = %c0 to %c2 step %c1 {
          %off = arith.muli %h, %c128 : index
          %i = arith.addi %tid, %off : index
          %x = memref.load %tile[%i] : memref<256xf32, #gpu.address_space<workgroup>>
          %y = arith.mulf %x, %two : f32
          %o = arith.addi %base, %i : index
          memref.store %y, %out[%o] : memref<?xf32>
        }
        %parity = arith.remui %round, %c2 : index
        sympow_tile.mbarrier_wait %bars[%c0] parity %parity
            : memref<1xi64, #gpu.address_space<workgroup>>
        gpu.barrier
      }
      gpu.return
    }
    gpu.func @no_init_barrier(%in: memref<?xf32>, %out: memref<?xf32>)
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
      scf.for %round = %c0 to %c1 step %c1 {
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
    gpu.func @late_init(%in: memref<?xf32>, %out: memref<?xf32>)
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
      %c127 = arith.constant 127 : index
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %initializes = arith.cmpi eq, %tid, %c127 : index
      scf.if %initializes {
        sympow_tile.mbarrier_init %bars[%c0] count 1
            : memref<1xi64, #gpu.address_space<workgroup>>
      }
      scf.for %round = %c0 to %c1 step %c1 {
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
    gpu.func @misaligned(%in: memref<?xf32>, %out: memref<?xf32>)
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
      scf.for %round = %c0 to %c1 step %c1 {
        %base = arith.muli %round, %c256 : index
        scf.if %first {
          scf.for %k = %c0 to %c4 step %c1 {
            %to = arith.muli %k, %c64 : index
            %from = arith.addi %base, %to : index
            %at = arith.addi %to, %c2 : index
            sympow_tile.bulk_copy %in[%from], %tile[%at], bytes %c256, %bars[%c0]
                : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
                  memref<1xi64, #gpu.address_space<workgroup>>, index
          }
          sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c1024
              : memref<1xi64, #gpu.address_space<workgroup>>
        }
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
    gpu.func @extra_arrival(%in: memref<?xf32>, %out: memref<?xf32>)
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
      scf.for %round = %c0 to %c1 step %c1 {
        %base = arith.muli %round, %c256 : index
        scf.if %first {
          sympow_tile.mbarrier_arrive %bars[%c0] expect_tx %c1024
              : memref<1xi64, #gpu.address_space<workgroup>>
          sympow_tile.mbarrier_arrive %bars[%c0]
              : memref<1xi64, #gpu.address_space<workgroup>>
          scf.for %k = %c0 to %c4 step %c1 {
            %to = arith.muli %k, %c64 : index
            %from = arith.addi %base, %to : index
            sympow_tile.bulk_copy %in[%from], %tile[%to], bytes %c256, %bars[%c0]
                : memref<?xf32>, memref<256xf32, #gpu.address_space<workgroup>>,
                  memref<1xi64, #gpu.address_space<workgroup>>, index
          }
        }
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
    gpu.func @refill_early(%in: memref<?xf32>, %out: memref<?xf32>)
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
      }
      gpu.return
    }
  }
}
