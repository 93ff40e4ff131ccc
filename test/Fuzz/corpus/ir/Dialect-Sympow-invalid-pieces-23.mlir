// sympow.state_query: one numerator row of e values per query head.
func.func @query_numerator(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                           %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'numerator' has e = 4, but 'S' has e = 8}}
  %n, %d = sympow.state_query power = 2 scale = 1.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x4xf32>, tensor<1x4x4xf32>
  return
}
