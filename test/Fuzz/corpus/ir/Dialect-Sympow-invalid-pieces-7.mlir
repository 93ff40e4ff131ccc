// sympow.rotate: counts are f32 or f64.
func.func @rotate_counts_dtype(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xbf16>) {
  // expected-error @+1 {{'counts' must have element type f32 or f64, got 'bf16'}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xbf16> -> tensor<1x4x2x8xf32>
  return
}
