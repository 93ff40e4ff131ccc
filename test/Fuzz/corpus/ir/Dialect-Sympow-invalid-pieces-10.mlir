// sympow.rotate: a rotation keeps the type.
func.func @rotate_result(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xf32>) {
  // expected-error @+1 {{result must have the input's type 'tensor<1x4x2x8xf32>', got 'tensor<1x4x2x8xf16>'}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xf32> -> tensor<1x4x2x8xf16>
  return
}
