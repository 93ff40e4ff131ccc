// The formulation is chosen before the decomposition.
func.func @no_formulation(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                          %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  // expected-error @+1 {{has no formulation to decompose: run --sympow-select-formulation first or write one}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      -> tensor<1x16x2x8xf32>
  return %y : tensor<1x16x2x8xf32>
}
