// k has q's element type.
func.func @k_dtype(%q: tensor<1x16x4x8xbf16>, %k: tensor<1x16x2x8xf16>, %v: tensor<1x16x2x8xbf16>) {
  // expected-error @+1 {{'k' must have the element type of 'q', 'bf16', got 'f16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xbf16>) k(%k : tensor<1x16x2x8xf16>) v(%v : tensor<1x16x2x8xbf16>) -> tensor<1x16x4x8xbf16>
  return
}
