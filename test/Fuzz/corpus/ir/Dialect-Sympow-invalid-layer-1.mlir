// p >= 2.
func.func @zero_power(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 0}}
  %y = sympow.layer power = 0 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
