// The state is (S, Z, c).
func.func @initial_state_count(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xf32>) {
  // expected-error @+1 {{the initial state is (S, Z, c): 3 tensors, got 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0 : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>) -> tensor<1x16x4x8xf32>
  return
}
