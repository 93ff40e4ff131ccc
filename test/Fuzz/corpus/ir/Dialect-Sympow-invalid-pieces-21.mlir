// sympow.state_update: keys and values share a type.
func.func @update_mixed(%k: tensor<1x4x2x8xbf16>, %v: tensor<1x4x2x8xf16>) {
  // expected-error @+1 {{'values' must have the element type of 'keys', 'bf16', got 'f16'}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xf16>) -> tensor<1x2x36x8xf32>, tensor<1x2x36xf32>
  return
}
