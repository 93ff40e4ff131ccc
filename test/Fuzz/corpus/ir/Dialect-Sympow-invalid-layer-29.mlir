// S has D = C(d + p - 1, p) rows.
func.func @initial_state_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x35x8xf32>, %z0: tensor<1x2x35xf32>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{'initial S' has D = 35, but phi^2 of d = 8 (C(d+p-1, p)) has D = 36}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x35x8xf32>, tensor<1x2x35xf32>, tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}
