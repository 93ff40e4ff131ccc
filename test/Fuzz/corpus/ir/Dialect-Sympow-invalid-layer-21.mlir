// At most d dims rotate.
func.func @rotary_dims(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{rotary dims = 16 exceed the head dim d = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 16> schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}
