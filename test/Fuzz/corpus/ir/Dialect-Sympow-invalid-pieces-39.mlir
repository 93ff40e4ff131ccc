// sympow.combine: parts cover the same queries.
func.func @combine_shapes(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>,
                          %m: tensor<1x4x2xf32>, %ns: tensor<1x3x2x8xf32>,
                          %ds: tensor<1x3x2xf32>) {
  // expected-error @+1 {{'state numerator' has C = 3, but 'block numerator' has C = 4}}
  %y = sympow.combine block(%n, %d, %m : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>,
      tensor<1x4x2xf32>) state(%ns, %ds : tensor<1x3x2x8xf32>, tensor<1x3x2xf32>)
      -> tensor<1x4x2x8xf32>
  return
}
