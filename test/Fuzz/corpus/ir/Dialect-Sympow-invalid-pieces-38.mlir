// sympow.combine: the state part is (numerator, denominator).
func.func @combine_state_count(%n: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{the state part is (numerator, denominator): 2 tensors, got 1}}
  %y = sympow.combine state(%n : tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  return
}
