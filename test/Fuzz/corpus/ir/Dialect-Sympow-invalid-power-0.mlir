// The powers the compiler supports: even, 2 <= p <= 32 (the rule every entry
// point shares, sympow/Support/LayerRules.h). Larger p is refused by the
// verifier at once: no cost grows with the attribute's value (issue 13: the
// formulation choice looped over p = 2^31, the verifier 2^62 times at d = 1).

// PASS: power p must be an even integer >= 2 and <= 32, got 2147483648
func.func @huge_power(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 2147483648}}
  %y = sympow.layer power = 2147483648 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}
