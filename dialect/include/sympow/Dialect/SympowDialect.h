//===- SympowDialect.h - The sympow dialect ---------------------*- C++ -*-===//

#ifndef SYMPOW_DIALECT_SYMPOWDIALECT_H
#define SYMPOW_DIALECT_SYMPOWDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "sympow/Dialect/SympowDialect.h.inc"

#endif // SYMPOW_DIALECT_SYMPOWDIALECT_H
