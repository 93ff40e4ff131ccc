// v and k share H.
func.func @v_heads(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x4x8xf32>) {
  // expected-error @+1 {{'v' has H = 4, but 'k' has H = 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
