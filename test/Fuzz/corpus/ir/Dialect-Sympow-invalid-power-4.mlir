// Within the bound, D = C(64+31, 32) > 2^63 - 1: no state can have it, so a
// state of any size is refused (it used to verify whatever its D).
// PASS: no state can hold it
func.func @state_size_overflows(%q: tensor<1x16x1x64xf32>, %k: tensor<1x16x1x64xf32>, %v: tensor<1x16x1x8xf32>, %s0: tensor<1x1x5x8xf32>, %z0: tensor<1x1x5xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{no state can hold it}}
  %y = sympow.layer power = 32 q(%q : tensor<1x16x1x64xf32>) k(%k : tensor<1x16x1x64xf32>) v(%v : tensor<1x16x1x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x5x8xf32>, tensor<1x1x5xf32>, tensor<1x1xf32>) -> tensor<1x16x1x8xf32>
  return
}
