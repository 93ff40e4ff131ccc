//===- SympowOps.h - Operations of the sympow dialect -----------*- C++ -*-===//

#ifndef SYMPOW_DIALECT_SYMPOWOPS_H
#define SYMPOW_DIALECT_SYMPOWOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sympow/Dialect/SympowAttrs.h"
#include "sympow/Dialect/SympowDialect.h"

#define GET_OP_CLASSES
#include "sympow/Dialect/SympowOps.h.inc"

#endif // SYMPOW_DIALECT_SYMPOWOPS_H
