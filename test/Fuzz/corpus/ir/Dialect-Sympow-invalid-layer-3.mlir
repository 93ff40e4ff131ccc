// q is [B, T, Hq, d].
func.func @q_rank(%q: tensor<16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'q' must be a tensor of shape [B, T, Hq, d], got 'tensor<16x4x8xf32>'}}
  %y = sympow.layer power = 2 q(%q : tensor<16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
