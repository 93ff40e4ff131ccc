// sympow.embed: same rank.
func.func @embed_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{input and result must have the same rank >= 1}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<144xf32>
  return
}
