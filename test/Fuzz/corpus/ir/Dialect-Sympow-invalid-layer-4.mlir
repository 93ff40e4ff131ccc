// k and q share T.
func.func @k_seq_len(%q: tensor<1x16x4x8xf32>, %k: tensor<1x8x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'k' has T = 8, but 'q' has T = 16}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x8x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
