// sympow.combine: the block part has its running maximum.
func.func @combine_block_count(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>) {
  // expected-error @+1 {{the block part is (numerator, denominator, log_max): 3 tensors, got 2}}
  %y = sympow.combine block(%n, %d : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>)
      -> tensor<1x4x2x8xf32>
  return
}
