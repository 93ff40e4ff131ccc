// k and q share d.
func.func @k_head_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x4xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'k' has d = 4, but 'q' has d = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x4xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
