//===- ShapeContract.h - Named-dimension shape checks -----------*- C++ -*-===//
//
// The verifiers state each operand's shape with SPEC's dimension names
// ("B", "T", "H", "d", ...). The first tensor that mentions a name binds it;
// later tensors must agree, and the message names both tensors, the
// dimension and the two sizes. Dynamic sizes agree with anything.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_DIALECT_LIB_SHAPECONTRACT_H
#define SYMPOW_DIALECT_LIB_SHAPECONTRACT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace sympow {

/// Element types a tensor may have, for messages and checks.
enum class ElementClass {
  Input, // bf16, f16 or f32: q, k, v
  F32,   // gates, states, partial results
  Count, // f32 or f64: angle counts
  F64,   // accumulated angle counts
};

class ShapeContract {
public:
  explicit ShapeContract(mlir::Operation *op) : op(op) {}

  /// Checks that `type` is a ranked tensor whose dims are `dims`, binding or
  /// comparing each name; `what` names the tensor in messages.
  mlir::LogicalResult expect(llvm::StringRef what, mlir::Type type,
                             llvm::ArrayRef<llvm::StringRef> dims);
  /// As `expect`, plus the element type class.
  mlir::LogicalResult expect(llvm::StringRef what, mlir::Type type,
                             llvm::ArrayRef<llvm::StringRef> dims,
                             ElementClass elements);

  /// Binds (or compares) `name` to a size that comes from elsewhere, e.g. D
  /// computed from d and p; `source` says where it came from.
  mlir::LogicalResult bind(llvm::StringRef name, int64_t size,
                           llvm::StringRef source);

  /// The op whose shapes these are (for messages).
  mlir::Operation *operation() const { return op; }

  /// The static size bound to `name`, if any.
  std::optional<int64_t> get(llvm::StringRef name) const;

  /// Requires the dims in `names` to be static: the compiler specialises
  /// kernels on the head dims d and e.
  mlir::LogicalResult requireStatic(llvm::ArrayRef<llvm::StringRef> names);

private:
  struct Binding {
    int64_t size;
    std::string source;
  };
  mlir::Operation *op;
  llvm::StringMap<Binding> bindings;
  llvm::StringMap<std::string> dynamicSeenIn;
};

/// Checks `type`'s element type against `elements`.
mlir::LogicalResult verifyElementClass(mlir::Operation *op,
                                       llvm::StringRef what, mlir::Type type,
                                       ElementClass elements);

/// Checks that p is an even integer >= 2.
mlir::LogicalResult verifyPower(mlir::Operation *op, int64_t power);

/// Checks that `a` and `b` have the same element type.
mlir::LogicalResult verifySameElementType(mlir::Operation *op,
                                          llvm::StringRef whatA, mlir::Type a,
                                          llvm::StringRef whatB, mlir::Type b);

/// Binds D = C(d + p - 1, p) from the bound d and p.
mlir::LogicalResult bindEmbeddingDim(ShapeContract &shapes, int64_t power);

} // namespace sympow

#endif // SYMPOW_DIALECT_LIB_SHAPECONTRACT_H
