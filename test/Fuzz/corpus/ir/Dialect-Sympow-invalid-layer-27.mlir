// Blend layers return no state.
func.func @blend_no_final_state(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'blend' has no state: it takes no initial state and returns no final state}}
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <blend, length = 64> -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>
  return
}
