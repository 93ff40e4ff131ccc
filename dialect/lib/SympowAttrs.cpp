//===- SympowAttrs.cpp - Attributes of the sympow dialect -----------------===//

#include "sympow/Dialect/SympowAttrs.h"
#include "sympow/Dialect/SympowDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace sympow;

#include "sympow/Dialect/SympowEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sympow/Dialect/SympowAttrs.cpp.inc"

void SympowDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sympow/Dialect/SympowAttrs.cpp.inc"
      >();
}

LogicalResult RotaryAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 APFloat baseValue, APFloat rateScaleValue,
                                 int64_t dims, RotaryLayout layout) {
  double base = baseValue.convertToDouble();
  double rateScale = rateScaleValue.convertToDouble();
  if (!std::isfinite(base) || base <= 1.0)
    return emitError() << "rotary base must be a finite number > 1, got "
                       << base;
  if (!std::isfinite(rateScale) || rateScale <= 0.0)
    return emitError() << "rotary rate_scale must be a finite number > 0, got "
                       << rateScale;
  if (dims < 2 || dims % 2 != 0)
    return emitError()
           << "rotary dims must be even and >= 2 (dims rotate in pairs), got "
           << dims;
  return success();
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ScheduleKind kind,
                                   std::optional<int64_t> length) {
  bool relative = kind == ScheduleKind::Warped || kind == ScheduleKind::Blend;
  if (relative && !length)
    return emitError() << "schedule '" << stringifyScheduleKind(kind)
                       << "' needs its typical length: length = L";
  if (relative && *length < 1)
    return emitError() << "schedule length must be >= 1, got " << *length;
  if (!relative && length)
    return emitError() << "only the warped and blend schedules take a length; "
                       << "'" << stringifyScheduleKind(kind) << "' does not";
  return success();
}

LogicalResult
FormulationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        FormulationKind kind, std::optional<int64_t> chunk) {
  if (kind == FormulationKind::Chunked && !chunk)
    return emitError() << "the chunked formulation needs a chunk size: "
                       << "#sympow.formulation<chunked, chunk = C>";
  if (kind == FormulationKind::Chunked && *chunk < 1)
    return emitError() << "chunk size must be >= 1, got " << *chunk;
  if (kind != FormulationKind::Chunked && chunk)
    return emitError() << "only the chunked formulation takes a chunk size; '"
                       << stringifyFormulationKind(kind) << "' does not";
  return success();
}
