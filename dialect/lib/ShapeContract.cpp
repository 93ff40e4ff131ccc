//===- ShapeContract.cpp - Named-dimension shape checks -------------------===//

#include "ShapeContract.h"

#include "sympow/Dialect/SymmetricPower.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace sympow;

static std::string shapeString(ArrayRef<StringRef> dims) {
  std::string text = "[";
  llvm::interleave(
      dims, [&](StringRef d) { text += d.str(); }, [&] { text += ", "; });
  return text + "]";
}

LogicalResult ShapeContract::expect(StringRef what, Type type,
                                    ArrayRef<StringRef> dims) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != static_cast<int64_t>(dims.size()))
    return op->emitOpError() << "'" << what << "' must be a tensor of shape "
                             << shapeString(dims) << ", got " << type;
  for (auto [index, name] : llvm::enumerate(dims)) {
    int64_t size = tensor.getDimSize(index);
    if (ShapedType::isDynamic(size)) {
      dynamicSeenIn.try_emplace(name, what.str());
      continue;
    }
    std::string source = ("'" + what + "'").str();
    if (failed(bind(name, size, source)))
      return failure();
  }
  return success();
}

LogicalResult ShapeContract::expect(StringRef what, Type type,
                                    ArrayRef<StringRef> dims,
                                    ElementClass elements) {
  if (failed(expect(what, type, dims)))
    return failure();
  return verifyElementClass(op, what, type, elements);
}

LogicalResult ShapeContract::bind(StringRef name, int64_t size,
                                  StringRef source) {
  auto [it, inserted] = bindings.try_emplace(name, Binding{size, source.str()});
  if (inserted || it->second.size == size)
    return success();
  return op->emitOpError() << source << " has " << name << " = " << size
                           << ", but " << it->second.source << " has " << name
                           << " = " << it->second.size;
}

std::optional<int64_t> ShapeContract::get(StringRef name) const {
  auto it = bindings.find(name);
  if (it == bindings.end())
    return std::nullopt;
  return it->second.size;
}

LogicalResult ShapeContract::requireStatic(ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    if (get(name))
      continue;
    auto seen = dynamicSeenIn.find(name);
    std::string where = seen == dynamicSeenIn.end()
                            ? ""
                            : " (dynamic in '" + seen->second + "')";
    return op->emitOpError()
           << "dimension " << name << " must be static" << where
           << ": kernels are specialised on the head dims; batch, sequence "
              "length and head counts may be dynamic";
  }
  return success();
}

static StringRef allowedTypes(ElementClass elements) {
  switch (elements) {
  case ElementClass::Input:
    return "bf16, f16 or f32";
  case ElementClass::F32:
    return "f32";
  case ElementClass::Count:
    return "f32 or f64";
  case ElementClass::F64:
    return "f64";
  }
  llvm_unreachable("unknown element class");
}

LogicalResult sympow::verifyElementClass(Operation *op, StringRef what,
                                         Type type, ElementClass elements) {
  Type element = cast<ShapedType>(type).getElementType();
  bool ok = false;
  switch (elements) {
  case ElementClass::Input:
    ok = element.isBF16() || element.isF16() || element.isF32();
    break;
  case ElementClass::F32:
    ok = element.isF32();
    break;
  case ElementClass::Count:
    ok = element.isF32() || element.isF64();
    break;
  case ElementClass::F64:
    ok = element.isF64();
    break;
  }
  if (ok)
    return success();
  return op->emitOpError() << "'" << what << "' must have element type "
                           << allowedTypes(elements) << ", got " << element;
}

LogicalResult sympow::verifyPower(Operation *op, int64_t power) {
  if (isSupportedPower(power))
    return success();
  return op->emitOpError()
         << "power p must be an even integer >= 2 and <= "
         << rules::kMaxPower << ", got " << power
         << (power % 2 ? " (odd powers give scores that are not a distribution)"
                       : "");
}

LogicalResult sympow::verifySameElementType(Operation *op, StringRef whatA,
                                            Type a, StringRef whatB, Type b) {
  Type ea = cast<ShapedType>(a).getElementType();
  Type eb = cast<ShapedType>(b).getElementType();
  if (ea == eb)
    return success();
  return op->emitOpError() << "'" << whatB
                           << "' must have the element type of '" << whatA
                           << "', " << ea << ", got " << eb;
}

LogicalResult sympow::bindEmbeddingDim(ShapeContract &shapes, int64_t power) {
  std::optional<int64_t> d = shapes.get("d");
  if (!d)
    return success();
  if (!isSupportedPower(power))
    return failure(); // verifyPower says why
  std::optional<int64_t> dim = symmetricPowerDim(*d, power);
  if (!dim)
    // No state can have that many coordinates: bound to -1, which no static
    // size equals, so any state given is refused (a layer without one is
    // fine).
    return shapes.bind("D", -1,
                       "phi^" + std::to_string(power) + " of d = " +
                           std::to_string(*d) +
                           " (C(d+p-1, p) > 2^63 - 1, no state can hold it)");
  std::string source = "phi^" + std::to_string(power) +
                       " of d = " + std::to_string(*d) + " (C(d+p-1, p))";
  return shapes.bind("D", *dim, source);
}
