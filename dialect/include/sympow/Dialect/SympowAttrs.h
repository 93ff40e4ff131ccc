//===- SympowAttrs.h - Attributes of the sympow dialect ---------*- C++ -*-===//

#ifndef SYMPOW_DIALECT_SYMPOWATTRS_H
#define SYMPOW_DIALECT_SYMPOWATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "sympow/Dialect/SympowEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sympow/Dialect/SympowAttrs.h.inc"

#endif // SYMPOW_DIALECT_SYMPOWATTRS_H
