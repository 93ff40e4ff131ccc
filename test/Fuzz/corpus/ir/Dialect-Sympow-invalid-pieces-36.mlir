// sympow.combine: something to combine.
func.func @combine_nothing() {
  // expected-error @+1 {{needs a block part, a state part or both}}
  %y = sympow.combine -> tensor<1x4x2x8xf32>
  return
}
