func.func @small_head_dim(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                          %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{cannot generate kernels: d = 8 is not supported: head dims must be multiples of 16 from 16 to 256}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      formulation = <recurrent> -> tensor<1x16x2x8xf32>
  return
}
