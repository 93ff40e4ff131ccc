//===- Layer.cpp - Layer description helpers ------------------------------===//

#include "sympow/Reference/Layer.h"

#include <cmath>

namespace sympow::reference {

const char *toString(RotaryLayout layout) {
  switch (layout) {
  case RotaryLayout::Interleaved:
    return "interleaved";
  case RotaryLayout::Half:
    return "half";
  }
  return "?";
}

const char *toString(Schedule schedule) {
  switch (schedule) {
  case Schedule::None:
    return "none";
  case Schedule::Uniform:
    return "uniform";
  case Schedule::Learned:
    return "learned";
  case Schedule::Warped:
    return "warped";
  case Schedule::Blend:
    return "blend";
  }
  return "?";
}

const char *toString(Formulation formulation) {
  switch (formulation) {
  case Formulation::Attention:
    return "attention";
  case Formulation::Recurrent:
    return "recurrent";
  case Formulation::Chunked:
    return "chunked";
  }
  return "?";
}

const char *toString(InputType type) {
  switch (type) {
  case InputType::F32:
    return "f32";
  case InputType::BF16:
    return "bf16";
  case InputType::F16:
    return "f16";
  case InputType::F64:
    return "f64";
  }
  return "?";
}

double LayerDesc::effectiveScale() const {
  if (scale)
    return *scale;
  return 1.0 / std::sqrt(static_cast<double>(shape.d));
}

Tensor::Tensor(std::vector<int64_t> shape) : shape(std::move(shape)) {
  int64_t n = numel();
  data.assign(n > 0 ? static_cast<size_t>(n) : 0, 0.0);
}

Tensor::Tensor(std::vector<int64_t> shape, std::vector<double> data)
    : shape(std::move(shape)), data(std::move(data)) {}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::string Tensor::shapeString() const {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

Tensor tensorFromFloats(std::vector<int64_t> shape, const float *data) {
  Tensor t(std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = data[i];
  return t;
}

std::vector<float> toFloats(const Tensor &t) {
  return std::vector<float>(t.data.begin(), t.data.end());
}

} // namespace sympow::reference
