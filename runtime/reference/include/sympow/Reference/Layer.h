//===- Layer.h - Description and tensors of a sympow layer ------*- C++ -*-===//
//
// Plain data types for one sympow attention layer, following SPEC.md:
// the layer description, the tensors (contiguous, row-major, f64) and the
// recurrent state (S, Z, c).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_LAYER_H
#define SYMPOW_REFERENCE_LAYER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sympow::reference {

enum class RotaryLayout {
  Interleaved, ///< pairs (2j, 2j+1)
  Half,        ///< pairs (j, j + r/2)
};

enum class Schedule {
  None,    ///< no rotation
  Uniform, ///< c_t = c_0 + t + 1 (RoPE)
  Learned, ///< c_t = c_0 + sum_{s<=t} beta_s
  Warped,  ///< relative count w(a) = L a / (a + L)
  Blend,   ///< relative count a below L, L + L (a - L) / a above
};

enum class Formulation { Attention, Recurrent, Chunked };

/// The type q, k and v are rounded to (round-to-nearest-even) on entry.
/// F64 keeps them exact; it is not a kernel input type but lets tests take
/// finite differences without rounding noise.
enum class InputType { F32, BF16, F16, F64 };

const char *toString(RotaryLayout layout);
const char *toString(Schedule schedule);
const char *toString(Formulation formulation);
const char *toString(InputType type);

/// Sizes of one layer call (SPEC names).
struct Shape {
  int64_t B = 1;  ///< batch
  int64_t T = 1;  ///< tokens
  int64_t Hq = 1; ///< query heads
  int64_t H = 1;  ///< key/value heads
  int64_t d = 1;  ///< query/key head dim
  int64_t e = 1;  ///< value head dim
};

struct RotaryConfig {
  double base = 10000.0;
  double rateScale = 1.0;
  /// Rotated dims r; 0 means all d dims.
  int64_t dims = 0;
  RotaryLayout layout = RotaryLayout::Interleaved;
};

struct LayerDesc {
  int power = 2;
  /// Multiplies q; default 1/sqrt(d).
  std::optional<double> scale;
  RotaryConfig rotary;
  Schedule schedule = Schedule::None;
  /// L, required by (and only allowed with) Warped and Blend.
  std::optional<double> warpLength;
  bool hasLogG = false;     ///< log_g [B,T,H] is given
  bool hasLogGamma = false; ///< log_gamma [H] is given
  Formulation formulation = Formulation::Attention;
  /// Chunk size C of the chunked formulation (must be >= 1 there).
  int64_t chunkSize = 0;
  InputType inputType = InputType::F32;
  /// Return the state after the last token.
  bool wantFinalState = false;
  Shape shape;

  double effectiveScale() const;
  int64_t rotatedDims() const { return rotary.dims ? rotary.dims : shape.d; }
};

/// A dense row-major f64 tensor.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;

  Tensor() = default;
  /// Zero-filled tensor of the given shape.
  explicit Tensor(std::vector<int64_t> shape);
  Tensor(std::vector<int64_t> shape, std::vector<double> data);

  int64_t numel() const;
  /// "[2, 3, 4]"
  std::string shapeString() const;
};

/// Copies float buffers in and out (kernels and trainers hold f32/bf16 data;
/// the reference holds f64). `data` must hold the shape's element count.
Tensor tensorFromFloats(std::vector<int64_t> shape, const float *data);
std::vector<float> toFloats(const Tensor &t);

/// Recurrent state: S [B,H,D,e], Z [B,H,D], c [B,H]; D = C(d+p-1, p) in the
/// SPEC's phi order.
struct State {
  Tensor S, Z, c;
};

struct LayerInputs {
  Tensor q;                       ///< [B,T,Hq,d]
  Tensor k;                       ///< [B,T,H,d]
  Tensor v;                       ///< [B,T,H,e]
  std::optional<Tensor> logG;     ///< [B,T,H]
  std::optional<Tensor> logGamma; ///< [H]
  std::optional<Tensor> beta;     ///< [B,T,H], learned schedule only
  std::optional<State> initialState;
};

struct LayerOutputs {
  Tensor y; ///< [B,T,Hq,e]
  std::optional<State> finalState;
};

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_LAYER_H
