// v and q share B.
func.func @v_batch(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<2x16x2x8xf32>) {
  // expected-error @+1 {{'v' has B = 2, but 'q' has B = 1}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<2x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
