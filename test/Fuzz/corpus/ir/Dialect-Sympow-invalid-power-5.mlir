// p = 32 itself, without a state, verifies.
func.func @largest_power(%q: tensor<1x16x1x64xf32>, %k: tensor<1x16x1x64xf32>, %v: tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32> {
  %y = sympow.layer power = 32 q(%q : tensor<1x16x1x64xf32>) k(%k : tensor<1x16x1x64xf32>) v(%v : tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
  return %y : tensor<1x16x1x8xf32>
}
