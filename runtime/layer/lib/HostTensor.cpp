//===- HostTensor.cpp - Host data in the kernels' element types -----------===//

#include "sympow/Runtime/HostTensor.h"

#include "sympow/Support/Float16.h"

#include <cstring>

using namespace sympow;
using namespace sympow::runtime;

size_t sympow::runtime::elementBytes(ElementType type) {
  switch (type) {
  case ElementType::BF16:
  case ElementType::F16:
    return 2;
  case ElementType::F32:
    return 4;
  case ElementType::F64:
    return 8;
  }
  return 0;
}

std::vector<uint8_t>
sympow::runtime::encodeTensor(ElementType type,
                              const std::vector<double> &values) {
  size_t width = elementBytes(type);
  std::vector<uint8_t> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *at = bytes.data() + i * width;
    float f = static_cast<float>(values[i]);
    uint16_t h = 0;
    switch (type) {
    case ElementType::BF16:
      h = floatToBfloat16Bits(f);
      std::memcpy(at, &h, 2);
      break;
    case ElementType::F16:
      h = floatToHalfBits(f);
      std::memcpy(at, &h, 2);
      break;
    case ElementType::F32:
      std::memcpy(at, &f, 4);
      break;
    case ElementType::F64:
      std::memcpy(at, &values[i], 8);
      break;
    }
  }
  return bytes;
}

std::vector<double> sympow::runtime::decodeTensor(ElementType type,
                                                  const void *bytes,
                                                  size_t count) {
  size_t width = elementBytes(type);
  std::vector<double> values(count);
  const uint8_t *base = static_cast<const uint8_t *>(bytes);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t *at = base + i * width;
    uint16_t h;
    float f;
    switch (type) {
    case ElementType::BF16:
      std::memcpy(&h, at, 2);
      values[i] = bfloat16BitsToFloat(h);
      break;
    case ElementType::F16:
      std::memcpy(&h, at, 2);
      values[i] = halfBitsToFloat(h);
      break;
    case ElementType::F32:
      std::memcpy(&f, at, 4);
      values[i] = f;
      break;
    case ElementType::F64:
      std::memcpy(&values[i], at, 8);
      break;
    }
  }
  return values;
}
