// y is [B, T, Hq, e].
func.func @y_value_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'y' has e = 4, but 'v' has e = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x4xf32>
  return
}
