func.func @attention_state(%q: tensor<1x16x2x16xf32>, %k: tensor<1x16x2x16xf32>,
                           %v: tensor<1x16x2x16xf32>) {
  // expected-error @+1 {{the attention kernel takes and returns no state: use the chunked or recurrent formulation}}
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x2x16xf32>)
      k(%k : tensor<1x16x2x16xf32>) v(%v : tensor<1x16x2x16xf32>)
      formulation = <attention>
      -> tensor<1x16x2x16xf32>, tensor<1x2x136x16xf32>, tensor<1x2x136xf32>,
         tensor<1x2xf32>
  return
}
