// A schedule rotates: it needs the rotary configuration.
func.func @schedule_needs_rotary(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'uniform' rotates q and k: it needs a rotary configuration}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}
