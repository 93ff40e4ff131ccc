// c is [B, H].
func.func @final_c_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'final c' must be a tensor of shape [B, H], got 'tensor<1x2x1xf32>'}}
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2x1xf32>
  return
}
