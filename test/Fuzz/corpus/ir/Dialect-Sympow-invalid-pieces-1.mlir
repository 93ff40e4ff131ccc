// sympow.embed: D = C(d + p - 1, p).
func.func @embed_wrong_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{phi^2 of d = 8 has D = C(9, 2) = 36 coordinates, but the result has 64}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<4x64xf32>
  return
}
