// p = 4 and d = 8: D = C(11, 4) = 330.
func.func @final_s_p4(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'final S' has D = 36, but phi^4 of d = 8 (C(d+p-1, p)) has D = 330}}
  %y, %s, %z, %c = sympow.layer power = 4 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>
  return
}
