// log_g is f32.
func.func @log_g_dtype(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %g: tensor<1x16x2xf16>) {
  // expected-error @+1 {{'log_g' must have element type f32, got 'f16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_g(%g : tensor<1x16x2xf16>) -> tensor<1x16x4x8xf32>
  return
}
