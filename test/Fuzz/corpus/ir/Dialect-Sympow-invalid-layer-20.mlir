// A rotary configuration alone rotates nothing.
func.func @rotary_needs_schedule(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{a rotary configuration needs a schedule other than 'none'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> -> tensor<1x16x4x8xf32>
  return
}
