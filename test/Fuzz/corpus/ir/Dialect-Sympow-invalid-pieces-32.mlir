// sympow.attention_block: rotary and schedule together.
func.func @block_rotary_alone(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                              %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{rotary and schedule come together: a relative rotation needs both}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) rotary = <dims = 8>
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}
