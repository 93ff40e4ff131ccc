// A conformal sympow layer as a trainer would describe it: p = 2, GQA
// (8 query heads over 4 key/value heads), the data-dependent gate and a
// learned rotation rate, returning its final state. The formulation is left
// to the compiler.
func.func @layer(%q: tensor<2x8192x8x64xbf16>, %k: tensor<2x8192x4x64xbf16>,
                 %v: tensor<2x8192x4x64xbf16>, %log_g: tensor<2x8192x4xf32>,
                 %beta: tensor<2x8192x4xf32>)
    -> (tensor<2x8192x8x64xbf16>, tensor<2x4x2080x64xf32>,
        tensor<2x4x2080xf32>, tensor<2x4xf32>) {
  %y, %s, %z, %c = sympow.layer power = 2
      q(%q : tensor<2x8192x8x64xbf16>) k(%k : tensor<2x8192x4x64xbf16>)
      v(%v : tensor<2x8192x4x64xbf16>) log_g(%log_g : tensor<2x8192x4xf32>)
      beta(%beta : tensor<2x8192x4xf32>)
      rotary = <base = 8192.0, rate_scale = 6.2831853071795862, dims = 64>
      schedule = <learned>
      -> tensor<2x8192x8x64xbf16>, tensor<2x4x2080x64xf32>,
         tensor<2x4x2080xf32>, tensor<2x4xf32>
  return %y, %s, %z, %c : tensor<2x8192x8x64xbf16>, tensor<2x4x2080x64xf32>,
                          tensor<2x4x2080xf32>, tensor<2x4xf32>
}
