// Warped layers have no state to start from.
func.func @warped_no_initial_state(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xf32>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{schedule 'warped' has no state: it takes no initial state and returns no final state}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>) rotary = <dims = 8> schedule = <warped, length = 64> -> tensor<1x16x4x8xf32>
  return
}
