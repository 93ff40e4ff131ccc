// sympow.state_update: keys and values cover the same tokens.
func.func @update_block(%k: tensor<1x4x2x8xf32>, %v: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{'values' has C = 3, but 'keys' has C = 4}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x3x2x8xf32>) -> tensor<1x2x36x8xf32>, tensor<1x2x36xf32>
  return
}
