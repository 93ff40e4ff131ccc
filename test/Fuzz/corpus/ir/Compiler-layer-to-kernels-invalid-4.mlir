func.func @big_chunk(%q: tensor<1x16x2x128xf32>, %k: tensor<1x16x2x128xf32>,
                     %v: tensor<1x16x2x128xf32>) {
  // expected-error @+1 {{cannot generate kernels: chunks of 64 tokens need 65792 bytes of workgroup memory at d = 128, e = 128, more than 48 KiB; use chunks of at most 47}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x128xf32>)
      k(%k : tensor<1x16x2x128xf32>) v(%v : tensor<1x16x2x128xf32>)
      formulation = <chunked, chunk = 64> -> tensor<1x16x2x128xf32>
  return
}
