// sympow.state_query: p of the state.
func.func @query_power(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                       %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'S' has D = 36, but phi^4 of d = 8 (C(d+p-1, p)) has D = 330}}
  %n, %d = sympow.state_query power = 4 scale = 1.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x8xf32>, tensor<1x4x4xf32>
  return
}
