// sympow.embed: element type kept.
func.func @embed_dtype(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{'result' must have the element type of 'input', 'bf16', got 'f32'}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xbf16> -> tensor<4x36xf32>
  return
}
