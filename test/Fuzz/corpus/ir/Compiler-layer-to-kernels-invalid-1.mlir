func.func @dynamic_heads(%q: tensor<1x16x?x16xf32>, %k: tensor<1x16x?x16xf32>,
                         %v: tensor<1x16x?x16xf32>) {
  // expected-error @+1 {{the kernels are specialised on the head counts: Hq and H must be static}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x?x16xf32>)
      k(%k : tensor<1x16x?x16xf32>) v(%v : tensor<1x16x?x16xf32>)
      formulation = <attention> -> tensor<1x16x?x16xf32>
  return
}
