// sympow.state_query: scale > 0.
func.func @query_scale(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                       %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{scale must be a finite number > 0, got 0}}
  %n, %d = sympow.state_query power = 2 scale = 0.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x8xf32>, tensor<1x4x4xf32>
  return
}
