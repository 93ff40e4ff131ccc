//===- HostTensor.h - Host data in the kernels' element types ---*- C++ -*-===//
//
// Tools and tests hold layers as f64; kernels read bf16/f16/f32 q, k, v,
// f32 gates and states and an f64 count. These convert, rounding to
// nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_HOSTTENSOR_H
#define SYMPOW_RUNTIME_HOSTTENSOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sympow::runtime {

enum class ElementType { BF16, F16, F32, F64 };

size_t elementBytes(ElementType type);

/// The bytes of `values` as `type`.
std::vector<uint8_t> encodeTensor(ElementType type,
                                  const std::vector<double> &values);

/// `count` values of `type` at `bytes`, as f64.
std::vector<double> decodeTensor(ElementType type, const void *bytes,
                                 size_t count);

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_HOSTTENSOR_H
