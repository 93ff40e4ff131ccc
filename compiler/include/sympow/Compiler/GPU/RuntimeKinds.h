//===- RuntimeKinds.h - The dialect's variant enums as the runtime's ------===//
//
// A variant's dtype, gate and rotary schedule are enums of the sympow dialect
// in the compiler (ElementKind, GateKind, ScheduleKind, from ODS) and of the
// runtime (runtime::DType, Gate, Schedule), which links no MLIR. They cross
// that boundary here and nowhere else, by value, with every enumerator's
// value checked at compile time: reordering either side fails the build.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_GPU_RUNTIMEKINDS_H
#define SYMPOW_COMPILER_GPU_RUNTIMEKINDS_H

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Dialect/SympowAttrs.h"
#include "sympow/Runtime/Layer.h"

namespace sympow {

namespace runtime_kinds_detail {
template <typename A, typename B> constexpr bool same(A a, B b) {
  return static_cast<int>(a) == static_cast<int>(b);
}
} // namespace runtime_kinds_detail

#define SYMPOW_SAME_KIND(A, B)                                                 \
  static_assert(runtime_kinds_detail::same(A, B), #A " and " #B " differ")
SYMPOW_SAME_KIND(ElementKind::BF16, runtime::DType::BF16);
SYMPOW_SAME_KIND(ElementKind::F16, runtime::DType::F16);
SYMPOW_SAME_KIND(ElementKind::F32, runtime::DType::F32);
SYMPOW_SAME_KIND(GateKind::None, runtime::Gate::None);
SYMPOW_SAME_KIND(GateKind::Head, runtime::Gate::Head);
SYMPOW_SAME_KIND(GateKind::Data, runtime::Gate::Data);
SYMPOW_SAME_KIND(GateKind::Both, runtime::Gate::Both);
SYMPOW_SAME_KIND(ScheduleKind::None, runtime::Schedule::None);
SYMPOW_SAME_KIND(ScheduleKind::Uniform, runtime::Schedule::Uniform);
SYMPOW_SAME_KIND(ScheduleKind::Learned, runtime::Schedule::Learned);
SYMPOW_SAME_KIND(ScheduleKind::Warped, runtime::Schedule::Warped);
SYMPOW_SAME_KIND(ScheduleKind::Blend, runtime::Schedule::Blend);
SYMPOW_SAME_KIND(FormulationKind::Attention, runtime::Formulation::Attention);
SYMPOW_SAME_KIND(FormulationKind::Chunked, runtime::Formulation::Chunked);
SYMPOW_SAME_KIND(FormulationKind::Recurrent, runtime::Formulation::Recurrent);
#undef SYMPOW_SAME_KIND

constexpr runtime::DType toRuntime(ElementKind k) {
  return static_cast<runtime::DType>(k);
}
constexpr runtime::Gate toRuntime(GateKind k) {
  return static_cast<runtime::Gate>(k);
}
constexpr runtime::Schedule toRuntime(ScheduleKind k) {
  return static_cast<runtime::Schedule>(k);
}
constexpr runtime::Formulation toRuntime(FormulationKind k) {
  return static_cast<runtime::Formulation>(k);
}
/// The runtime's variant of `spec` in `formulation`, chunks of `chunk`
/// (chunked only): what the runtime's kernel lists and argument tables
/// decide from.
inline runtime::LayerVariant toRuntime(const AttentionKernelSpec &spec,
                                       runtime::Formulation formulation,
                                       int64_t chunk) {
  runtime::LayerVariant v;
  v.p = spec.p;
  v.d = spec.d;
  v.e = spec.e;
  v.hq = spec.hq;
  v.h = spec.h;
  v.dtype = toRuntime(spec.dtype);
  v.gate = toRuntime(spec.gate);
  v.schedule = toRuntime(spec.schedule);
  v.formulation = formulation;
  v.chunk = chunk;
  return v;
}
constexpr FormulationKind toDialect(runtime::Formulation f) {
  return static_cast<FormulationKind>(f);
}

} // namespace sympow

#endif // SYMPOW_COMPILER_GPU_RUNTIMEKINDS_H
