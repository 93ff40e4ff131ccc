// States are f32.
func.func @initial_z_dtype(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xbf16>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{'initial Z' must have element type f32, got 'bf16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x36x8xf32>, tensor<1x2x36xbf16>, tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}
