//===- Passes.h - Passes of the sympow compiler -----------------*- C++ -*-===//

#ifndef SYMPOW_COMPILER_PASSES_H
#define SYMPOW_COMPILER_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "sympow/Dialect/SympowDialect.h"

namespace sympow {

#define GEN_PASS_DECL
#include "sympow/Compiler/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sympow/Compiler/Passes.h.inc"

} // namespace sympow

#endif // SYMPOW_COMPILER_PASSES_H
