// sympow.embed: d and D static.
func.func @embed_dynamic(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{the last dims (d and D) must be static}}
  %0 = sympow.embed power = 2 %x : tensor<4x?xf32> -> tensor<4x36xf32>
  return
}
