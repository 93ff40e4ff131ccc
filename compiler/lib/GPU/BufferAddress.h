//===- BufferAddress.h - The byte address of a buffer element --*- C++ -*-===//
//
// Lowerings that hand NVVM a raw address (wgmma descriptors, mbarriers,
// bulk copies) take it from the buffer's aligned pointer: for workgroup
// memory the address in the shared window.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_LIB_GPU_BUFFERADDRESS_H
#define SYMPOW_LIB_GPU_BUFFERADDRESS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace sympow::gpu_detail {

/// The address of buffer[offset] (a 1-D memref) as an i64.
inline mlir::Value byteAddress(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value buffer, mlir::Value offset) {
  auto type = mlir::cast<mlir::MemRefType>(buffer.getType());
  mlir::Value base =
      mlir::memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  mlir::Value bytes = mlir::arith::MulIOp::create(
      b, loc, offset,
      mlir::arith::ConstantIndexOp::create(b, loc,
                                           type.getElementTypeBitWidth() / 8));
  return mlir::arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), mlir::arith::AddIOp::create(b, loc, base, bytes));
}

} // namespace sympow::gpu_detail

#endif // SYMPOW_LIB_GPU_BUFFERADDRESS_H
