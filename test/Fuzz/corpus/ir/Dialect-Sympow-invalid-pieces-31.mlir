// sympow.attention_block: learned rotations happen before the block.
func.func @block_learned(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                         %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{only the warped and blend schedules rotate inside an attention block; rotate q and k for 'learned' with sympow.rotate}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) rotary = <dims = 8> schedule = <learned>
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}
