// RUN: sympow-opt %s --sympow-select-formulation | FileCheck %s
// RUN: sympow-opt %s --sympow-select-formulation="chunk-size=128" | FileCheck %s --check-prefix=C128
// RUN: sympow-opt %s --sympow-select-formulation="assumed-seq-len=1048576" | FileCheck %s --check-prefix=LONG
// RUN: sympow-opt %s --sympow-select-formulation="arch=sm_80" | FileCheck %s
// RUN: not sympow-opt %s --sympow-select-formulation="arch=sm_75" 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: no GPU model for arch 'sm_75': use sm_90a (H100) or sm_80 (A100)

// Short sequences: the quadratic form is cheaper than any state.
// CHECK-LABEL: func @short
// CHECK: formulation = <attention>
func.func @short(%q: tensor<1x256x8x64xbf16>, %k: tensor<1x256x8x64xbf16>,
                 %v: tensor<1x256x8x64xbf16>) -> tensor<1x256x8x64xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<1x256x8x64xbf16>)
      k(%k : tensor<1x256x8x64xbf16>) v(%v : tensor<1x256x8x64xbf16>)
      -> tensor<1x256x8x64xbf16>
  return %y : tensor<1x256x8x64xbf16>
}

// Long sequences: chunks of C tokens and a state across them.
// CHECK-LABEL: func @long
// CHECK: formulation = <chunked, chunk = 64>
// C128: func @long
// C128: formulation = <chunked, chunk = 128>
func.func @long(%q: tensor<1x1048576x8x64xbf16>, %k: tensor<1x1048576x8x64xbf16>,
                %v: tensor<1x1048576x8x64xbf16>) -> tensor<1x1048576x8x64xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<1x1048576x8x64xbf16>)
      k(%k : tensor<1x1048576x8x64xbf16>) v(%v : tensor<1x1048576x8x64xbf16>)
      -> tensor<1x1048576x8x64xbf16>
  return %y : tensor<1x1048576x8x64xbf16>
}

// Decoding: one token against a state is the recurrent step.
// CHECK-LABEL: func @decode
// CHECK: formulation = <recurrent>
func.func @decode(%q: tensor<4x1x8x32xf16>, %k: tensor<4x1x8x32xf16>,
                  %v: tensor<4x1x8x32xf16>, %s: tensor<4x8x528x32xf32>,
                  %z: tensor<4x8x528xf32>, %c: tensor<4x8xf32>)
    -> tensor<4x1x8x32xf16> {
  %y, %s1, %z1, %c1 = sympow.layer power = 2 q(%q : tensor<4x1x8x32xf16>)
      k(%k : tensor<4x1x8x32xf16>) v(%v : tensor<4x1x8x32xf16>)
      initial_state(%s, %z, %c : tensor<4x8x528x32xf32>, tensor<4x8x528xf32>,
                    tensor<4x8xf32>)
      -> tensor<4x1x8x32xf16>, tensor<4x8x528x32xf32>, tensor<4x8x528xf32>,
         tensor<4x8xf32>
  return %y : tensor<4x1x8x32xf16>
}

// Warped angles have no recurrent form, whatever the length.
// CHECK-LABEL: func @warped
// CHECK: schedule = <warped, length = 4096> formulation = <attention>
func.func @warped(%q: tensor<1x1048576x8x64xbf16>, %k: tensor<1x1048576x8x64xbf16>,
                  %v: tensor<1x1048576x8x64xbf16>) -> tensor<1x1048576x8x64xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<1x1048576x8x64xbf16>)
      k(%k : tensor<1x1048576x8x64xbf16>) v(%v : tensor<1x1048576x8x64xbf16>)
      rotary = <dims = 64> schedule = <warped, length = 4096>
      -> tensor<1x1048576x8x64xbf16>
  return %y : tensor<1x1048576x8x64xbf16>
}

// A formulation written by the user is kept.
// CHECK-LABEL: func @override
// CHECK: formulation = <recurrent>
func.func @override(%q: tensor<1x256x8x64xbf16>, %k: tensor<1x256x8x64xbf16>,
                    %v: tensor<1x256x8x64xbf16>) -> tensor<1x256x8x64xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<1x256x8x64xbf16>)
      k(%k : tensor<1x256x8x64xbf16>) v(%v : tensor<1x256x8x64xbf16>)
      formulation = <recurrent> -> tensor<1x256x8x64xbf16>
  return %y : tensor<1x256x8x64xbf16>
}

// A dynamic length is costed at assumed-seq-len (default 4096). With
// today's kernels and chunks of 64 the chunked formulation overtakes
// attention between 32K and 64K tokens at d = 64 (test/Unit/CostModelTest.cpp).
// CHECK-LABEL: func @dynamic
// CHECK: formulation = <attention>
// LONG-LABEL: func @dynamic
// LONG: formulation = <chunked, chunk = 64>
func.func @dynamic(%q: tensor<1x?x8x64xbf16>, %k: tensor<1x?x8x64xbf16>,
                   %v: tensor<1x?x8x64xbf16>) -> tensor<1x?x8x64xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<1x?x8x64xbf16>)
      k(%k : tensor<1x?x8x64xbf16>) v(%v : tensor<1x?x8x64xbf16>)
      -> tensor<1x?x8x64xbf16>
  return %y : tensor<1x?x8x64xbf16>
}
