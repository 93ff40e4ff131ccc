// sympow.embed: only the last dim changes.
func.func @embed_leading_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result dim 0 is 5, but input dim 0 is 4: only the last dim changes (d -> D)}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<5x36xf32>
  return
}
