//===- LoopAnnotations.cpp - scf.for's loop annotations on LLVM branches --===//
//
// An scf.for's `llvm.loop_annotation` reaches the LLVM dialect as a
// discardable attribute of its back edge (convert-scf-to-cf, then
// cf-to-LLVM); the translation to LLVM IR reads the branch's inherent
// `loop_annotation` only (GPUPasses.td).
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLOOPANNOTATIONS
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;

namespace sympow {
namespace {

constexpr llvm::StringLiteral kHandedOn = "llvm.loop_annotation";

template <typename Branch> void moveAnnotation(Branch op) {
  auto annotation = dyn_cast_or_null<LLVM::LoopAnnotationAttr>(
      op->getDiscardableAttr(kHandedOn));
  if (!annotation)
    return;
  op.setLoopAnnotationAttr(annotation);
  op->removeDiscardableAttr(kHandedOn);
}

struct LoopAnnotations : impl::SympowLoopAnnotationsBase<LoopAnnotations> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto br = dyn_cast<LLVM::BrOp>(op))
        moveAnnotation(br);
      else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
        moveAnnotation(condBr);
    });
  }
};

} // namespace
} // namespace sympow
