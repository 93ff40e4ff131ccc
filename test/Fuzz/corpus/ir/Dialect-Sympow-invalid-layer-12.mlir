// q is bf16, f16 or f32.
func.func @q_dtype(%q: tensor<1x16x4x8xf64>, %k: tensor<1x16x2x8xf64>, %v: tensor<1x16x2x8xf64>) {
  // expected-error @+1 {{'q' must have element type bf16, f16 or f32, got 'f64'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf64>) k(%k : tensor<1x16x2x8xf64>) v(%v : tensor<1x16x2x8xf64>) -> tensor<1x16x4x8xf64>
  return
}
