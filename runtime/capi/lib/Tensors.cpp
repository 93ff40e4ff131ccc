//===- Tensors.cpp - Checking the tensors of a call -----------------------===//

#include "Tensors.h"

#include <cstring>
#include <string>

using namespace sympow;
using namespace sympow::capi;

size_t sympow::capi::dtypeBytes(sympow_dtype dtype) {
  switch (dtype) {
  case SYMPOW_DTYPE_BF16:
  case SYMPOW_DTYPE_F16:
    return 2;
  case SYMPOW_DTYPE_F32:
    return 4;
  case SYMPOW_DTYPE_F64:
    return 8;
  }
  return 0;
}

const char *sympow::capi::dtypeName(sympow_dtype dtype) {
  switch (dtype) {
  case SYMPOW_DTYPE_BF16:
    return "bf16";
  case SYMPOW_DTYPE_F16:
    return "f16";
  case SYMPOW_DTYPE_F32:
    return "f32";
  case SYMPOW_DTYPE_F64:
    return "f64";
  }
  return "an unknown dtype";
}

static std::string list(const int64_t *values, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

Status sympow::capi::checkTensor(const sympow_tensor &t,
                                 const TensorRule &rule) {
  std::string name = std::string("'") + rule.name + "'";
  const int64_t *want = rule.shape.begin();
  size_t rank = rule.shape.size();
  if (!t.data)
    return Status::error(name + " is null");
  int dtype; // any int from a C caller (not only the enum's values)
  std::memcpy(&dtype, &t.dtype, sizeof dtype);
  if (dtype != int(rule.dtype))
    return Status::error(name + " is " +
                         (dtype >= 0 && dtype <= SYMPOW_DTYPE_F64
                              ? std::string(dtypeName(t.dtype))
                              : "dtype " + std::to_string(dtype)) +
                         ", must be " + dtypeName(rule.dtype));
  if (t.rank != int32_t(rank))
    return Status::error(name + " has rank " + std::to_string(t.rank) +
                         ", must have rank " + std::to_string(rank) + " " +
                         list(want, rank));
  for (size_t i = 0; i < rank; ++i)
    if (t.shape[i] != want[i])
      return Status::error(name + " has shape " + list(t.shape, rank) +
                           ", the layer needs " + list(want, rank) + " (dim " +
                           std::to_string(i) + ")");
  int64_t expected = 1;
  // The tensor's bytes must be addressable (a huge B or T can overflow).
  int64_t bytesTotal = int64_t(dtypeBytes(rule.dtype));
  for (size_t i = 0; i < rank; ++i)
    if (t.shape[i] < 0 ||
        __builtin_mul_overflow(bytesTotal, t.shape[i], &bytesTotal))
      return Status::error(name + " has shape " + list(t.shape, rank) +
                           ": more bytes than memory can hold");
  for (size_t i = rank; i-- > 0;) {
    // A dim of size 1 may have any stride.
    if (t.shape[i] != 1 && t.strides[i] != expected)
      return Status::error(
          name + " has strides " + list(t.strides, rank) +
          " (elements); the kernels read row-major contiguous tensors, "
          "strides " +
          [&] {
            int64_t s[SYMPOW_MAX_RANK], e = 1;
            for (size_t j = rank; j-- > 0;)
              s[j] = e, e *= t.shape[j];
            return list(s, rank);
          }() +
          ": make it contiguous first");
    expected *= t.shape[i];
  }
  if (reinterpret_cast<uintptr_t>(t.data) % rule.alignment)
    return Status::error(name + " is not aligned to " +
                         std::to_string(rule.alignment) + " bytes");
  return Status::success();
}

Status sympow::capi::checkPresence(const sympow_tensor &t, const char *name,
                                   bool needed, const char *has,
                                   const char *hasNot) {
  if (needed && !t.data)
    return Status::error(std::string("'") + name + "' is null but " + has);
  if (!needed && t.data)
    return Status::error(std::string("'") + name + "' is given but " + hasNot +
                         " (its data must be null)");
  return Status::success();
}

size_t sympow::capi::tensorBytes(const sympow_tensor &t) {
  size_t n = dtypeBytes(t.dtype);
  for (int32_t i = 0; i < t.rank && i < SYMPOW_MAX_RANK; ++i)
    n *= size_t(t.shape[i]);
  return n;
}
