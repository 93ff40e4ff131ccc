// The emulator's counters (docs/Emulator.md, "Counters") on kernels whose
// counts follow from reading them; CountersTest.cpp checks every field.
//
// @counts, grid 4 x block 64: each thread loads 2 f32 and one vector<4xf32>
// (thread t of block b reads in[64 b + t .. 64 b + t + 3]: overlapping, so
// 259 distinct floats), does 3 FMAs in an scf.for of 5 iterations, a
// vector<4xf32> multiply (4) and its reduction (3), a libdevice exp (1 sfu,
// 6 fp32, 1 int), an approximate log (afn: 1 sfu, 1 fp32), a divf (sfu),
// one barrier, stores 1 f32; block 2 does 2 more float ops and is the
// heaviest.
// RUN: sympow-emulate %s --kernel counts --grid 4 --block 64 --arg f32:260=0.5 --arg f32:256 --counts --counts-json %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// CHECK: emulator: ok
// CHECK: counts: kernel 'counts' grid (4, 1, 1) block (64, 1, 1) shared 0 static + 0 dynamic bytes
// CHECK: total heaviest block
// CHECK: global_load_bytes 6144 1536
// CHECK: global_store_bytes 1024 256
// CHECK: global_loads 768 192
// CHECK: global_stores 256 64
// CHECK: shared_load_bytes 0 0
// CHECK: fp32_fma 3840 960
// CHECK: fp32_alu 3968 1088
// CHECK: fp64 0 0
// CHECK: sfu 768 192
// CHECK: int_alu 1280 320
// CHECK: barriers 4 1
// CHECK: operations 10880 2816
// CHECK: heaviest block (2, 0, 0)
// CHECK: distinct global bytes: loaded 1036, stored 1024
// JSON: {"kernel": "counts", "grid": [4, 1, 1], "block": [64, 1, 1], "static_shared_bytes": 0, "dynamic_shared_bytes": 0,
// JSON: "total": {"global_load_bytes": 6144, {{.*}}"fp32_fma": 3840, {{.*}}"operations": 10880}
// JSON: "heaviest": {{[{]}}{{.*}}"fp32_alu": 1088,{{.*}}"operations": 2816}
// JSON: "heaviest_block": [2, 0, 0], "global_load_distinct_bytes": 1036, "global_store_distinct_bytes": 1024}
//
// @f64_call, block 32: f64 arithmetic in a device function called twice
// (fp64: sitofp, 2 x (fma, mulf), cmpf = 6 per thread; int: index_cast,
// select = 2).
// RUN: sympow-emulate %s --kernel f64_call --block 32 --arg f64:32 --counts | FileCheck %s --check-prefix=F64
// F64: global_store_bytes 256 256
// F64: fp32_alu 0 0
// F64: fp64 192 192
// F64: int_alu 64 64
// F64: distinct global bytes: loaded 0, stored 256
//
// @packed, block 32: 16-bit arithmetic on vectors counts a pair of elements
// as one operation (HMUL2/HFMA2): a vector<4xbf16> mulf and fma are 2 + 2;
// the truncation from f32, the extension back and the f32 mulf (4 each)
// count by elements.
// RUN: sympow-emulate %s --kernel packed --block 32 --arg f32:128=0.5 --counts | FileCheck %s --check-prefix=PACKED
// PACKED: fp32_fma 64 64
// PACKED: fp32_alu 448 448
// PACKED: fp64 0 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @counts(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %j = arith.addi %i, %c1 : index
      %x = memref.load %in[%i] : memref<?xf32>
      %y = memref.load %in[%j] : memref<?xf32>
      %v = vector.load %in[%i] : memref<?xf32>, vector<4xf32>
      %sq = arith.mulf %v, %v : vector<4xf32>
      %s = vector.reduction <add>, %sq : vector<4xf32> into f32
      %r = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %x) -> (f32) {
        %a = math.fma %acc, %y, %x : f32
        %b = math.fma %a, %y, %x : f32
        %c = math.fma %b, %y, %x : f32
        scf.yield %c : f32
      }
      %e = math.exp %r : f32
      %l = math.log %e fastmath<afn> : f32
      %q = arith.divf %l, %y : f32
      %t = arith.addf %q, %s : f32
      gpu.barrier
      %is2 = arith.cmpi eq, %bid, %c2 : index
      %w = scf.if %is2 -> (f32) {
        %m = arith.mulf %t, %t : f32
        %n = arith.addf %m, %t : f32
        scf.yield %n : f32
      } else {
        scf.yield %t : f32
      }
      memref.store %w, %out[%i] : memref<?xf32>
      gpu.return
    }

    gpu.func @packed(%io: memref<?xf32>) kernel {
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %io[%i] : memref<?xf32>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
      %m = arith.mulf %h, %h : vector<4xbf16>
      %f = math.fma %h, %m, %h : vector<4xbf16>
      %x = arith.extf %f : vector<4xbf16> to vector<4xf32>
      %y = arith.mulf %x, %v : vector<4xf32>
      vector.store %y, %io[%i] : memref<?xf32>, vector<4xf32>
      gpu.return
    }

    func.func @twice(%x: f64) -> f64 {
      %y = math.fma %x, %x, %x : f64
      %z = arith.mulf %y, %x : f64
      return %z : f64
    }
    gpu.func @f64_call(%out: memref<?xf64>) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i64
      %x = arith.sitofp %i : i64 to f64
      %a = func.call @twice(%x) : (f64) -> f64
      %b = func.call @twice(%a) : (f64) -> f64
      %zero = arith.constant 0.0 : f64
      %neg = arith.cmpf olt, %b, %zero : f64
      %r = arith.select %neg, %zero, %b : f64
      memref.store %r, %out[%tid] : memref<?xf64>
      gpu.return
    }
  }
}
