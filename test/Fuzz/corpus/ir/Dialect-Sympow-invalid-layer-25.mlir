// Blend angles have no recurrent form.
func.func @blend_not_recurrent(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'blend' has no recurrent form: only the attention formulation computes it, not 'recurrent'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <blend, length = 64> formulation = <recurrent> -> tensor<1x16x4x8xf32>
  return
}
