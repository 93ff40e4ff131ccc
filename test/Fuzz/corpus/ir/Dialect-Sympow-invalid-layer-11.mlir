// Hq is a multiple of H.
func.func @gqa_groups(%q: tensor<1x16x3x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{the number of query heads Hq = 3 must be a multiple of the key/value heads H = 2 (GQA)}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x3x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x3x8xf32>
  return
}
