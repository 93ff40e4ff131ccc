//===- Desc.cpp - Layer descriptions of the C API -------------------------===//

#include "sympow/CAPI/Desc.h"
#include "sympow/Support/LayerRules.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace sympow;
using namespace sympow::capi;

bool sympow::capi::rotates(const sympow_layer_desc &d) {
  return d.schedule != SYMPOW_SCHEDULE_NONE;
}

bool sympow::capi::relativeSchedule(const sympow_layer_desc &d) {
  return d.schedule == SYMPOW_SCHEDULE_WARPED ||
         d.schedule == SYMPOW_SCHEDULE_BLEND;
}

static std::string str(int64_t x) { return std::to_string(x); }

static std::string str(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", x);
  return text;
}

/// An enum field as the int a C caller stored: any value, where reading it
/// as the C++ enum type is only defined for the enum's own range.
template <typename Enum> static int64_t raw(const Enum &field) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are ints");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

Result<sympow_layer_desc>
sympow::capi::normalizeDesc(const sympow_layer_desc &in) {
  sympow_layer_desc d = in;
  if (rules::Problem why = rules::checkPower(d.power))
    return Status::error("power = " + str(d.power) + " " + *why);
  if (d.head_dim < 1 || d.value_dim < 1)
    return Status::error("head_dim = " + str(d.head_dim) + " and value_dim = " +
                         str(d.value_dim) + " must be positive");
  if (d.kv_heads < 1 || d.query_heads < 1 || d.query_heads % d.kv_heads)
    return Status::error(
        "query_heads = " + str(d.query_heads) +
        " must be a positive multiple of kv_heads = " + str(d.kv_heads));
  if (raw(d.dtype) != SYMPOW_DTYPE_BF16 && raw(d.dtype) != SYMPOW_DTYPE_F16 &&
      raw(d.dtype) != SYMPOW_DTYPE_F32)
    return Status::error("dtype " + str(raw(d.dtype)) +
                         " is not a layer dtype: use bf16, f16 or f32");
  if (raw(d.schedule) < SYMPOW_SCHEDULE_NONE ||
      raw(d.schedule) > SYMPOW_SCHEDULE_BLEND)
    return Status::error("schedule " + str(raw(d.schedule)) +
                         " is unknown: use none, uniform, learned, warped or "
                         "blend");
  if (raw(d.formulation) < SYMPOW_FORMULATION_AUTO ||
      raw(d.formulation) > SYMPOW_FORMULATION_RECURRENT)
    return Status::error("formulation " + str(raw(d.formulation)) +
                         " is unknown: use auto, attention, chunked or "
                         "recurrent");
  d.has_log_g = d.has_log_g != 0;
  d.has_log_gamma = d.has_log_gamma != 0;
  if (d.chunk_size < 0)
    return Status::error("chunk_size = " + str(d.chunk_size) +
                         " must be positive (or 0: the compiled one)");
  if (d.formulation != SYMPOW_FORMULATION_CHUNKED &&
      d.formulation != SYMPOW_FORMULATION_AUTO)
    d.chunk_size = 0;
  if (relativeSchedule(d) && d.formulation != SYMPOW_FORMULATION_AUTO &&
      d.formulation != SYMPOW_FORMULATION_ATTENTION)
    return Status::error("the warped and blend schedules have no recurrent "
                         "form: only the attention formulation runs them");

  if (!rotates(d)) {
    d.rope_base = d.rope_scale = 0;
    d.rope_dims = 0;
    d.rope_layout = SYMPOW_ROPE_INTERLEAVED;
  } else {
    if (!d.rope_dims)
      d.rope_dims = d.head_dim;
    if (rules::Problem why = rules::checkRopeDims(d.rope_dims, d.head_dim))
      return Status::error("rope_dims = " + str(d.rope_dims) + " " + *why);
    if (rules::Problem why = rules::checkRopeBase(d.rope_base))
      return Status::error("rope_base = " + str(d.rope_base) + " " + *why);
    if (rules::Problem why = rules::checkRopeScale(d.rope_scale))
      return Status::error("rope_scale = " + str(d.rope_scale) + " " + *why);
    if (raw(d.rope_layout) != SYMPOW_ROPE_INTERLEAVED &&
        raw(d.rope_layout) != SYMPOW_ROPE_HALF)
      return Status::error("rope_layout " + str(raw(d.rope_layout)) +
                           " is unknown: use interleaved or half");
  }
  if (relativeSchedule(d)) {
    if (d.warp_length < 1)
      return Status::error("warp_length = " + str(d.warp_length) +
                           " must be >= 1 for the warped and blend "
                           "schedules");
  } else {
    d.warp_length = 0;
  }
  if (d.scale == 0)
    d.scale = 1.0 / std::sqrt(double(d.head_dim));
  if (rules::Problem why = rules::checkScale(d.scale))
    return Status::error("scale = " + str(d.scale) + " " + *why +
                         " (0: 1/sqrt(d))");
  return d;
}

bool sympow::capi::sameVariant(const sympow_layer_desc &a,
                               const sympow_layer_desc &b) {
  return a.power == b.power && a.head_dim == b.head_dim &&
         a.value_dim == b.value_dim && a.query_heads == b.query_heads &&
         a.kv_heads == b.kv_heads && a.dtype == b.dtype &&
         a.has_log_g == b.has_log_g && a.has_log_gamma == b.has_log_gamma &&
         a.schedule == b.schedule && a.rope_base == b.rope_base &&
         a.rope_scale == b.rope_scale && a.rope_dims == b.rope_dims &&
         a.rope_layout == b.rope_layout && a.warp_length == b.warp_length &&
         a.scale == b.scale;
}

runtime::LayerVariant sympow::capi::layerVariant(const sympow_layer_desc &d) {
  using namespace sympow::runtime;
  LayerVariant v;
  v.p = d.power;
  v.d = d.head_dim;
  v.e = d.value_dim;
  v.hq = d.query_heads;
  v.h = d.kv_heads;
  v.dtype = d.dtype == SYMPOW_DTYPE_BF16  ? DType::BF16
            : d.dtype == SYMPOW_DTYPE_F16 ? DType::F16
                                          : DType::F32;
  v.gate = d.has_log_g ? (d.has_log_gamma ? Gate::Both : Gate::Data)
                       : (d.has_log_gamma ? Gate::Head : Gate::None);
  static const Schedule schedules[] = {Schedule::None, Schedule::Uniform,
                                       Schedule::Learned, Schedule::Warped,
                                       Schedule::Blend};
  v.schedule = schedules[d.schedule];
  v.formulation =
      d.formulation == SYMPOW_FORMULATION_CHUNKED     ? Formulation::Chunked
      : d.formulation == SYMPOW_FORMULATION_RECURRENT ? Formulation::Recurrent
                                                      : Formulation::Attention;
  v.chunk = d.chunk_size;
  return v;
}

std::string sympow::capi::variantString(const sympow_layer_desc &d) {
  static const char *dtypes[] = {"bf16", "f16", "f32", "f64"};
  static const char *gates[] = {"none", "head", "data", "both"};
  static const char *schedules[] = {"none", "uniform", "learned", "warped",
                                    "blend"};
  static const char *formulations[] = {"all", "attention", "chunked",
                                       "recurrent"};
  std::string s = "p=" + str(d.power) + ",d=" + str(d.head_dim) +
                  ",e=" + str(d.value_dim) + ",hq=" + str(d.query_heads) +
                  ",h=" + str(d.kv_heads) + ",dtype=" + dtypes[d.dtype & 3] +
                  ",gate=" + gates[d.has_log_g * 2 + d.has_log_gamma] +
                  ",rope=" + schedules[d.schedule % 5];
  if (rotates(d))
    s += std::string(",layout=") +
         (d.rope_layout == SYMPOW_ROPE_HALF ? "half" : "interleaved") +
         ",r=" + str(d.rope_dims) + ",base=" + str(d.rope_base) +
         ",rate_scale=" + str(d.rope_scale);
  if (relativeSchedule(d))
    s += ",L=" + str(d.warp_length);
  s += ",scale=" + str(d.scale);
  if (d.formulation != SYMPOW_FORMULATION_AUTO)
    s += std::string(",formulation=") + formulations[d.formulation % 4];
  if (d.chunk_size)
    s += ",chunk=" + str(d.chunk_size);
  return s;
}

extern "C" void sympow_layer_desc_init(sympow_layer_desc *desc) {
  if (!desc)
    return;
  *desc = sympow_layer_desc{};
  desc->power = 2;
  desc->head_dim = desc->value_dim = 64;
  desc->query_heads = desc->kv_heads = 1;
  desc->dtype = SYMPOW_DTYPE_BF16;
  desc->schedule = SYMPOW_SCHEDULE_NONE;
  desc->rope_base = 10000.0;
  desc->rope_scale = 1.0;
  desc->rope_layout = SYMPOW_ROPE_INTERLEAVED;
  desc->formulation = SYMPOW_FORMULATION_AUTO;
}
