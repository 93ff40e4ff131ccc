// sympow.discounted_scan: f32 states.
func.func @scan_dtype(%ds: tensor<1x4x2x36xf16>, %ld: tensor<1x4x2xf32>,
                      %s0: tensor<1x2x36xf16>) {
  // expected-error @+1 {{'deltas' must have element type f32, got 'f16'}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf16>, tensor<1x4x2xf32>, tensor<1x2x36xf16>
  return
}
