// RUN: sympow-opt %s --sympow-layer-to-kernels --split-input-file --verify-diagnostics

func.func @no_formulation(%q: tensor<1x16x2x16xf32>, %k: tensor<1x16x2x16xf32>,
                          %v: tensor<1x16x2x16xf32>) {
  // expected-error @+1 {{has no formulation: run --sympow-select-formulation first or write one}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x16xf32>)
      k(%k : tensor<1x16x2x16xf32>) v(%v : tensor<1x16x2x16xf32>)
      -> tensor<1x16x2x16xf32>
  return
}

// -----

func.func @dynamic_heads(%q: tensor<1x16x?x16xf32>, %k: tensor<1x16x?x16xf32>,
                         %v: tensor<1x16x?x16xf32>) {
  // expected-error @+1 {{the kernels are specialised on the head counts: Hq and H must be static}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x?x16xf32>)
      k(%k : tensor<1x16x?x16xf32>) v(%v : tensor<1x16x?x16xf32>)
      formulation = <attention> -> tensor<1x16x?x16xf32>
  return
}

// -----

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

// -----

func.func @small_head_dim(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                          %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{cannot generate kernels: d = 8 is not supported: head dims must be multiples of 16 from 16 to 256}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      formulation = <recurrent> -> tensor<1x16x2x8xf32>
  return
}

// -----

func.func @big_chunk(%q: tensor<1x16x2x128xf32>, %k: tensor<1x16x2x128xf32>,
                     %v: tensor<1x16x2x128xf32>) {
  // expected-error @+1 {{cannot generate kernels: chunks of 64 tokens need 65792 bytes of workgroup memory at d = 128, e = 128, more than 48 KiB; use chunks of at most 47}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x128xf32>)
      k(%k : tensor<1x16x2x128xf32>) v(%v : tensor<1x16x2x128xf32>)
      formulation = <chunked, chunk = 64> -> tensor<1x16x2x128xf32>
  return
}
