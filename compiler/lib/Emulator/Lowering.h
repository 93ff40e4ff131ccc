//===- Lowering.h - Pieces of sympow-gpu-to-emulator ------------*- C++ -*-===//
//
// Helpers the emulator lowering shares between its files: declaring the
// runtime's functions, site strings, and the rewrites of one function.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_EMULATOR_LOWERING_H
#define SYMPOW_COMPILER_EMULATOR_LOWERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

namespace sympow::emulator {

/// Declares the runtime functions and site strings in the top-level module
/// and builds calls to them.
class RuntimeCalls {
public:
  explicit RuntimeCalls(mlir::ModuleOp top) : top(top) {}

  /// Calls runtime function `name` (declared on first use with the types of
  /// `args` and `results`).
  mlir::func::CallOp call(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef name, mlir::TypeRange results,
                          mlir::ValueRange args);
  /// A pointer to a NUL-terminated global string describing `op`:
  /// "<op name> at <location>".
  mlir::Value site(mlir::OpBuilder &b, mlir::Operation *op);
  /// A pointer to a NUL-terminated global string holding `text`.
  mlir::Value text(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::StringRef text);

  mlir::Value i32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

private:
  mlir::ModuleOp top;
  llvm::StringMap<std::string> siteGlobals; // text -> global symbol
};

/// Where an accessed memref's memory comes from.
struct Root {
  mlir::Value value; // the allocation (null if unknown)
  int32_t space = 3; // abi::Space
};

/// Follows view-like ops back to the allocation `memref` derives from.
Root traceRoot(mlir::Value memref);

/// Byte size of one element of a memref of `elementType`.
int64_t elementBytes(mlir::Type elementType);

/// Emits before `op`: the address (index) of `memref[indices]`, and the
/// base and byte extent of its root allocation (-1 when unknown).
struct AccessAddress {
  mlir::Value addr, rootBase, rootBytes;
  int32_t space;
};
mlir::FailureOr<AccessAddress>
emitAddress(mlir::OpBuilder &b, mlir::Operation *op, mlir::Value memref,
            mlir::ValueRange indices, RuntimeCalls &calls);

/// Inserts a bounds/race check before each memory access of `fn`.
mlir::LogicalResult instrumentAccesses(mlir::Operation *fn,
                                       RuntimeCalls &calls);

/// Inserts at the start of every block of `fn` that has arithmetic one
/// call __sympow_emu_count with the block's ops counted by unit (Count.cpp
/// says how). Runs before any other rewrite of `fn` adds ops.
void insertOperationCounts(mlir::Operation *fn, RuntimeCalls &calls);

/// Replaces sympow_tile.exp2_ftz and log2_ftz in `fn` by math.exp2 and
/// math.log2 with the flushes the hardware makes: a result below 2^-126
/// is +0, a subnormal input of log2 a signed 0.
void lowerFlushMath(mlir::Operation *fn);

/// Scratch memory for a collective's operands (a memref of `type`'s
/// elements), allocated once at the entry of `fn`.
mlir::Value scratch(mlir::Operation *fn, mlir::VectorType type);
/// The address of `memref`'s data as an i64.
mlir::Value pointerOf(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memref);
/// Stores the vector `v` (any shape) into `buffer` flat, and loads it back.
void storeFlat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
               mlir::Value buffer, RuntimeCalls &calls);
mlir::Value loadFlat(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::VectorType type, mlir::Value buffer,
                     RuntimeCalls &calls);

/// Replaces the sympow_tile.warpgroup_* ops and async_proxy_fence in `fn`
/// by runtime calls (the emulator's warpgroup collective).
mlir::LogicalResult lowerWarpgroupOps(mlir::Operation *fn, RuntimeCalls &calls);

/// sympow_tile.elected as `scf.if` on thread 0, marked
/// (ElectedOp::getLoweredAttrName) so that insertOperationCounts counts its
/// arithmetic as warp instructions (warp 0 runs it on the GPU).
void lowerElected(mlir::Operation *fn);

/// A thread's repeated bulk copies as a loop of single ones, as on the GPU:
/// before the counts, so that the loop's index math counts.
void expandRepeatedBulkCopies(mlir::Operation *fn);
/// Replaces sympow_tile.mbarrier_init/arrive/wait and bulk_copy in `fn` by
/// runtime calls (the emulator's mbarriers); repeated copies expanded first.
mlir::LogicalResult lowerBulkCopyOps(mlir::Operation *fn, RuntimeCalls &calls);

/// Replaces thread/block ids, barriers, shuffles and nvgpu ops in `fn` by
/// runtime calls.
mlir::LogicalResult lowerGpuOps(mlir::Operation *fn, RuntimeCalls &calls);

} // namespace sympow::emulator

#endif // SYMPOW_COMPILER_EMULATOR_LOWERING_H
