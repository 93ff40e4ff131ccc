// CHECK-LABEL: func @minimal
// CHECK: sympow.layer power = 2 q(%{{[a-z0-9_]+}} : tensor<1x16x2x8xf32>) k(%{{[a-z0-9_]+}} : tensor<1x16x2x8xf32>) v(%{{[a-z0-9_]+}} : tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32>
func.func @minimal(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                   %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  %y = sympow.layer power = 2 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      -> tensor<1x16x2x8xf32>
  return %y : tensor<1x16x2x8xf32>
}

// Every feature: GQA, both gates, learned rotary, initial and final state,
// a chunked formulation and an explicit scale.
// CHECK-LABEL: func @everything
// CHECK: %[[Y:.*]], %{{[a-z0-9_]+}}:3 = sympow.layer power = 2 scale = 1.250000e-01
// CHECK-SAME: log_g(%{{[a-z0-9_]+}} : tensor<2x256x4xf32>)
// CHECK-SAME: log_gamma(%{{[a-z0-9_]+}} : tensor<4xf32>)
// CHECK-SAME: beta(%{{[a-z0-9_]+}} : tensor<2x256x4xf32>)
// CHECK-SAME: initial_state(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<2x4x2080x64xf32>, tensor<2x4x2080xf32>, tensor<2x4xf32>)
// CHECK-SAME: rotary = <dims = 64> schedule = <learned> formulation = <chunked, chunk = 64>
// CHECK-SAME: -> tensor<2x256x8x64xbf16>, tensor<2x4x2080x64xf32>, tensor<2x4x2080xf32>, tensor<2x4xf32>
func.func @everything(%q: tensor<2x256x8x64xbf16>, %k: tensor<2x256x4x64xbf16>,
                      %v: tensor<2x256x4x64xbf16>, %g: tensor<2x256x4xf32>,
                      %lg: tensor<4xf32>, %b: tensor<2x256x4xf32>,
                      %s0: tensor<2x4x2080x64xf32>, %z0: tensor<2x4x2080xf32>,
                      %c0: tensor<2x4xf32>) -> tensor<2x256x8x64xbf16> {
  %y, %s, %z, %c = sympow.layer power = 2 scale = 0.125
      q(%q : tensor<2x256x8x64xbf16>) k(%k : tensor<2x256x4x64xbf16>)
      v(%v : tensor<2x256x4x64xbf16>) log_g(%g : tensor<2x256x4xf32>)
      log_gamma(%lg : tensor<4xf32>) beta(%b : tensor<2x256x4xf32>)
      initial_state(%s0, %z0, %c0 : tensor<2x4x2080x64xf32>,
                    tensor<2x4x2080xf32>, tensor<2x4xf32>)
      rotary = <dims = 64> schedule = <learned>
      formulation = <chunked, chunk = 64>
      -> tensor<2x256x8x64xbf16>, tensor<2x4x2080x64xf32>,
         tensor<2x4x2080xf32>, tensor<2x4xf32>
  return %y : tensor<2x256x8x64xbf16>
}

// Dynamic batch and sequence length; p = 4 with e != d; a final state only
// (f64 angle count).
// CHECK-LABEL: func @dynamic_p4
// CHECK: sympow.layer power = 4 q(%{{[a-z0-9_]+}} : tensor<?x?x4x8xf16>)
// CHECK-SAME: rotary = <base = 5.000000e+02, rate_scale = 6.2831853071795862, dims = 4, layout = half> schedule = <uniform>
// CHECK-SAME: formulation = <recurrent>
// CHECK-SAME: -> tensor<?x?x4x16xf16>, tensor<?x2x330x16xf32>, tensor<?x2x330xf32>, tensor<?x2xf64>
func.func @dynamic_p4(%q: tensor<?x?x4x8xf16>, %k: tensor<?x?x2x8xf16>,
                      %v: tensor<?x?x2x16xf16>) -> tensor<?x?x4x16xf16> {
  %y, %s, %z, %c = sympow.layer power = 4 q(%q : tensor<?x?x4x8xf16>)
      k(%k : tensor<?x?x2x8xf16>) v(%v : tensor<?x?x2x16xf16>)
      rotary = <base = 500.0, rate_scale = 6.2831853071795862, dims = 4,
                layout = half>
      schedule = <uniform> formulation = <recurrent>
      -> tensor<?x?x4x16xf16>, tensor<?x2x330x16xf32>, tensor<?x2x330xf32>,
         tensor<?x2xf64>
  return %y : tensor<?x?x4x16xf16>
}

// The relative-only schedules, attention formulation, no state.
// CHECK-LABEL: func @warped_and_blend
// CHECK: schedule = <warped, length = 512> formulation = <attention>
// CHECK: schedule = <blend, length = 64>
func.func @warped_and_blend(%q: tensor<1x32x2x16xf32>, %k: tensor<1x32x2x16xf32>,
                            %v: tensor<1x32x2x16xf32>) -> tensor<1x32x2x16xf32> {
  %y = sympow.layer power = 2 q(%q : tensor<1x32x2x16xf32>)
      k(%k : tensor<1x32x2x16xf32>) v(%v : tensor<1x32x2x16xf32>)
      rotary = <dims = 16> schedule = <warped, length = 512>
      formulation = <attention> -> tensor<1x32x2x16xf32>
  %y2 = sympow.layer power = 6 q(%q : tensor<1x32x2x16xf32>)
      k(%k : tensor<1x32x2x16xf32>) v(%v : tensor<1x32x2x16xf32>)
      rotary = <dims = 8, layout = interleaved> schedule = <blend, length = 64>
      -> tensor<1x32x2x16xf32>
  return %y2 : tensor<1x32x2x16xf32>
}

// Head counts may be dynamic: kernels take them at run time.
// CHECK-LABEL: func @dynamic_heads
// CHECK: sympow.layer power = 2 q(%{{[a-z0-9_]+}} : tensor<?x?x?x64xbf16>) k(%{{[a-z0-9_]+}} : tensor<?x?x?x64xbf16>) v(%{{[a-z0-9_]+}} : tensor<?x?x?x32xbf16>)
func.func @dynamic_heads(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>,
                         %v: tensor<?x?x?x32xbf16>) -> tensor<?x?x?x32xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<?x?x?x64xbf16>)
      k(%k : tensor<?x?x?x64xbf16>) v(%v : tensor<?x?x?x32xbf16>)
      -> tensor<?x?x?x32xbf16>
  return %y : tensor<?x?x?x32xbf16>
}
