// PASS: power p must be an even integer >= 2 and <= 32, got 4611686018427387904
func.func @huge_power_d1(%q: tensor<1x16x1x1xf32>, %k: tensor<1x16x1x1xf32>, %v: tensor<1x16x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %z0: tensor<1x1x1xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 4611686018427387904}}
  %y = sympow.layer power = 4611686018427387904 q(%q : tensor<1x16x1x1xf32>) k(%k : tensor<1x16x1x1xf32>) v(%v : tensor<1x16x1x1xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1xf32>) -> tensor<1x16x1x1xf32>
  return
}
