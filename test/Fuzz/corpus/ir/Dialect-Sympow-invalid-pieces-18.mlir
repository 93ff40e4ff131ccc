// sympow.state_update: the state lives in phi space.
func.func @update_dim(%k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'result S' has D = 64, but phi^2 of d = 8 (C(d+p-1, p)) has D = 36}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) -> tensor<1x2x64x8xf32>, tensor<1x2x64xf32>
  return
}
