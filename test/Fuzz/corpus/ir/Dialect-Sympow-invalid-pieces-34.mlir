// sympow.attention_block: one running maximum per query row.
func.func @block_log_max(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                         %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'log_max' must be a tensor of shape [B, Cq, Hq], got 'tensor<1x4xf32>'}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4xf32>
  return
}
