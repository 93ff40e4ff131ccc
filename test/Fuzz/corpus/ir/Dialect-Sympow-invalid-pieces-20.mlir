// sympow.state_update: states are f32.
func.func @update_dtype(%k: tensor<1x4x2x8xbf16>, %v: tensor<1x4x2x8xbf16>) {
  // expected-error @+1 {{'result S' must have element type f32, got 'bf16'}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xbf16>) -> tensor<1x2x36x8xbf16>, tensor<1x2x36xf32>
  return
}
