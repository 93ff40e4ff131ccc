// The learned schedule reads beta.
func.func @learned_needs_beta(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'learned' needs beta [B, T, H]}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <learned> -> tensor<1x16x4x8xf32>
  return
}
