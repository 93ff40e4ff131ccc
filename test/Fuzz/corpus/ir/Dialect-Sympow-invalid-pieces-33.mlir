// sympow.attention_block: gates cover the key positions.
func.func @block_gates(%q: tensor<1x2x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                       %v: tensor<1x4x2x8xf32>, %g: tensor<1x2x2xf32>) {
  // expected-error @+1 {{'log_g' has Ck = 2, but 'keys' has Ck = 4}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x2x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) log_g(%g : tensor<1x2x2xf32>)
      -> tensor<1x2x2x8xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
  return
}
