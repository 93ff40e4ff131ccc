// sympow.rotate: rotated dims <= d.
func.func @rotate_dims(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xf32>) {
  // expected-error @+1 {{rotary dims = 10 exceed the head dim d = 8}}
  %0 = sympow.rotate %x by %c rotary = <dims = 10>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xf32> -> tensor<1x4x2x8xf32>
  return
}
