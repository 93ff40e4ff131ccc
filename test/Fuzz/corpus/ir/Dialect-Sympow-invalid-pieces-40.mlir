// sympow.combine: y is bf16, f16 or f32.
func.func @combine_dtype(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>) {
  // expected-error @+1 {{'result' must have element type bf16, f16 or f32, got 'f64'}}
  %y = sympow.combine state(%n, %d : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>)
      -> tensor<1x4x2x8xf64>
  return
}
