// Warped angles have no recurrent form.
func.func @warped_not_chunked(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'warped' has no recurrent form: only the attention formulation computes it, not 'chunked'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <warped, length = 64> formulation = <chunked, chunk = 4> -> tensor<1x16x4x8xf32>
  return
}
