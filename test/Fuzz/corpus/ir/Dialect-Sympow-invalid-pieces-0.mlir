// One case per verifier rule of the ops a layer decomposes into.

// sympow.embed: p even.
func.func @embed_odd_power(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 5}}
  %0 = sympow.embed power = 5 %x : tensor<4x8xf32> -> tensor<4x792xf32>
  return
}
