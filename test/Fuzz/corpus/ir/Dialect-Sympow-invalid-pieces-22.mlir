// sympow.state_query: GQA groups.
func.func @query_groups(%q: tensor<1x4x3x8xf32>, %s: tensor<1x2x36x8xf32>,
                        %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{the number of query heads Hq = 3 must be a multiple of the key/value heads H = 2 (GQA)}}
  %n, %d = sympow.state_query power = 2 scale = 1.0
      queries(%q : tensor<1x4x3x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x3x8xf32>, tensor<1x4x3xf32>
  return
}
