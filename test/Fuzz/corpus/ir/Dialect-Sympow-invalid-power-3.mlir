// PASS: power p must be an even integer >= 2 and <= 32, got 34
func.func @just_past_the_bound(%q: tensor<1x16x1x8xf32>, %k: tensor<1x16x1x8xf32>, %v: tensor<1x16x1x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 34}}
  %y = sympow.layer power = 34 q(%q : tensor<1x16x1x8xf32>) k(%k : tensor<1x16x1x8xf32>) v(%v : tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
  return
}
