// One case per rule of sympow.layer's verifier (SPEC's contract).

// p must be even: odd powers are not a distribution.
func.func @odd_power(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 3 (odd powers give scores that are not a distribution)}}
  %y = sympow.layer power = 3 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
