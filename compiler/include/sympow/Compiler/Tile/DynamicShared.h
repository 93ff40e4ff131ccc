//===- DynamicShared.h - Workgroup arrays past the static limit -*- C++ -*-===//
//
// A tile kernel's workgroup arrays as views of dynamic shared memory where
// they exceed CUDA's static 48 KiB (compiler/lib/Tile/DynamicShared.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_TILE_DYNAMICSHARED_H
#define SYMPOW_COMPILER_TILE_DYNAMICSHARED_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace sympow::tile {

/// Where `fn`'s workgroup attributions, laid end to end at their
/// alignments (16 bytes at least), exceed the static limit
/// (kStaticSharedBytes), replaces them by views of one dynamic shared
/// buffer and returns its size; returns 0 (and changes nothing) where they
/// fit.
mlir::FailureOr<int64_t> placeInDynamicShared(mlir::gpu::GPUFuncOp fn);

} // namespace sympow::tile

#endif // SYMPOW_COMPILER_TILE_DYNAMICSHARED_H
