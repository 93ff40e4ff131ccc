//===- BulkCopies.h - The mbarrier and bulk-copy ops' lowering -*- C++ -*-===//
//
// What TileToGPU.cpp takes from BulkCopiesToGPU.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_TILE_BULKCOPIES_H
#define SYMPOW_LIB_TILE_BULKCOPIES_H

#include "mlir/Transforms/DialectConversion.h"

namespace sympow::tile {

/// mbarrier_init/arrive/wait and bulk_copy with a mask or tile operands
/// become the same ops on each thread's scalars under an scf.if on its
/// mask; those are legal (each target lowers them).
void populateBulkCopyLowering(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              mlir::ConversionTarget &target);

} // namespace sympow::tile

#endif // SYMPOW_LIB_TILE_BULKCOPIES_H
