//===- Tensors.h - Checking the tensors of a call ---------------*- C++ -*-===//

#ifndef SYMPOW_CAPI_TENSORS_H
#define SYMPOW_CAPI_TENSORS_H

#include "sympow_kernels.h"

#include "sympow/Support/Status.h"

#include <initializer_list>

namespace sympow::capi {

size_t dtypeBytes(sympow_dtype dtype);
const char *dtypeName(sympow_dtype dtype);

/// What a tensor argument must be.
struct TensorRule {
  const char *name;
  sympow_dtype dtype;
  std::initializer_list<int64_t> shape;
  size_t alignment; // bytes of the data pointer
};

/// Checks a present tensor (data != null) against `rule`: rank, shape,
/// dtype, row-major contiguous strides and alignment.
Status checkTensor(const sympow_tensor &tensor, const TensorRule &rule);

/// Checks that an optional tensor is given exactly when the layer has it:
/// `has` says why it is needed, `hasNot` why it is not.
Status checkPresence(const sympow_tensor &tensor, const char *name, bool needed,
                     const char *has, const char *hasNot);

size_t tensorBytes(const sympow_tensor &tensor);

} // namespace sympow::capi

#endif // SYMPOW_CAPI_TENSORS_H
