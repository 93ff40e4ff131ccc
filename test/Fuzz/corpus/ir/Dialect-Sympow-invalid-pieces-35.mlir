// sympow.attention_block: inputs share one element type.
func.func @block_dtype(%q: tensor<1x4x2x8xbf16>, %k: tensor<1x4x2x8xbf16>,
                       %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'values' must have the element type of 'queries', 'bf16', got 'f32'}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xbf16>) keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}
