// d is static: kernels are specialised on it.
func.func @dynamic_head_dim(%q: tensor<1x16x4x?xf32>, %k: tensor<1x16x2x?xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{dimension d must be static (dynamic in 'q'): kernels are specialised on the head dims}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x?xf32>) k(%k : tensor<1x16x2x?xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
