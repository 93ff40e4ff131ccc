// log_g is [B, T, H].
func.func @log_g_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %g: tensor<1x16x4xf32>) {
  // expected-error @+1 {{'log_g' has H = 4, but 'k' has H = 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_g(%g : tensor<1x16x4xf32>) -> tensor<1x16x4x8xf32>
  return
}
