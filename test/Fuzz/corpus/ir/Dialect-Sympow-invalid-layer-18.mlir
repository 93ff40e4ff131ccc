// beta is [B, T, H].
func.func @beta_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %b: tensor<1x15x2xf32>) {
  // expected-error @+1 {{'beta' has T = 15, but 'q' has T = 16}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) beta(%b : tensor<1x15x2xf32>) rotary = <dims = 8> schedule = <learned> -> tensor<1x16x4x8xf32>
  return
}
