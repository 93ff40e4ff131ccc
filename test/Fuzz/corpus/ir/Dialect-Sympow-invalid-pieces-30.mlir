// sympow.attention_block: causal, so at most as many queries as keys.
func.func @block_causal(%q: tensor<1x8x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                        %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{a causal block has at most as many queries as keys, got Cq = 8 > Ck = 4}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x8x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x8x2x8xf32>, tensor<1x8x2xf32>, tensor<1x8x2xf32>
  return
}
