// PASS: power p must be an even integer >= 2 and <= 32, got 100000
func.func @power_d8_overflow(%q: tensor<1x16x1x8xf32>, %k: tensor<1x16x1x8xf32>, %v: tensor<1x16x1x8xf32>, %s0: tensor<1x1x5x8xf32>, %z0: tensor<1x1x5xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 100000}}
  %y = sympow.layer power = 100000 q(%q : tensor<1x16x1x8xf32>) k(%k : tensor<1x16x1x8xf32>) v(%v : tensor<1x16x1x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x5x8xf32>, tensor<1x1x5xf32>, tensor<1x1xf32>) -> tensor<1x16x1x8xf32>
  return
}
