// log_gamma is [H].
func.func @log_gamma_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %lg: tensor<1x2xf32>) {
  // expected-error @+1 {{'log_gamma' must be a tensor of shape [H], got 'tensor<1x2xf32>'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_gamma(%lg : tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}
