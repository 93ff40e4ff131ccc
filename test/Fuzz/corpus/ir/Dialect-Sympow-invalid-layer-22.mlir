// beta is the learned rotation rate.
func.func @beta_needs_learned(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %b: tensor<1x16x2xf32>) {
  // expected-error @+1 {{beta (the learned rotation rate) is only used by the 'learned' schedule, not 'uniform'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) beta(%b : tensor<1x16x2xf32>) rotary = <dims = 8> schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}
