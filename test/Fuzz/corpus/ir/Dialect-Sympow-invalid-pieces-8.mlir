// sympow.rotate: counts per token.
func.func @rotate_counts_shape(%x: tensor<1x4x2x8xf32>, %c: tensor<1x5x2xf32>) {
  // expected-error @+1 {{'counts' has T = 5, but 'input' has T = 4}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x5x2xf32> -> tensor<1x4x2x8xf32>
  return
}
