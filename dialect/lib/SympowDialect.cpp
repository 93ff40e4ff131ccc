//===- SympowDialect.cpp - The sympow dialect -----------------------------===//

#include "sympow/Dialect/SympowDialect.h"
#include "sympow/Dialect/SympowAttrs.h"
#include "sympow/Dialect/SympowOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sympow;

#include "sympow/Dialect/SympowDialect.cpp.inc"

void SympowDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sympow/Dialect/SympowOps.cpp.inc"
      >();
  registerAttributes();
}
