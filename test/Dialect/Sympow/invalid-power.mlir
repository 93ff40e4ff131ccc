// RUN: sympow-opt %s --split-input-file --verify-diagnostics
// RUN: not sympow-opt %s --split-input-file --sympow-select-formulation 2>&1 | FileCheck %s --check-prefix=PASS

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

// -----

// PASS: power p must be an even integer >= 2 and <= 32, got 4611686018427387904
func.func @huge_power_d1(%q: tensor<1x16x1x1xf32>, %k: tensor<1x16x1x1xf32>, %v: tensor<1x16x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %z0: tensor<1x1x1xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 4611686018427387904}}
  %y = sympow.layer power = 4611686018427387904 q(%q : tensor<1x16x1x1xf32>) k(%k : tensor<1x16x1x1xf32>) v(%v : tensor<1x16x1x1xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

// PASS: power p must be an even integer >= 2 and <= 32, got 100000
func.func @power_d8_overflow(%q: tensor<1x16x1x8xf32>, %k: tensor<1x16x1x8xf32>, %v: tensor<1x16x1x8xf32>, %s0: tensor<1x1x5x8xf32>, %z0: tensor<1x1x5xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 100000}}
  %y = sympow.layer power = 100000 q(%q : tensor<1x16x1x8xf32>) k(%k : tensor<1x16x1x8xf32>) v(%v : tensor<1x16x1x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x5x8xf32>, tensor<1x1x5xf32>, tensor<1x1xf32>) -> tensor<1x16x1x8xf32>
  return
}

// -----

// PASS: power p must be an even integer >= 2 and <= 32, got 34
func.func @just_past_the_bound(%q: tensor<1x16x1x8xf32>, %k: tensor<1x16x1x8xf32>, %v: tensor<1x16x1x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 34}}
  %y = sympow.layer power = 34 q(%q : tensor<1x16x1x8xf32>) k(%k : tensor<1x16x1x8xf32>) v(%v : tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
  return
}

// -----

// Within the bound, D = C(64+31, 32) > 2^63 - 1: no state can have it, so a
// state of any size is refused (it used to verify whatever its D).
// PASS: no state can hold it
func.func @state_size_overflows(%q: tensor<1x16x1x64xf32>, %k: tensor<1x16x1x64xf32>, %v: tensor<1x16x1x8xf32>, %s0: tensor<1x1x5x8xf32>, %z0: tensor<1x1x5xf32>, %c0: tensor<1x1xf32>) {
  // expected-error @+1 {{no state can hold it}}
  %y = sympow.layer power = 32 q(%q : tensor<1x16x1x64xf32>) k(%k : tensor<1x16x1x64xf32>) v(%v : tensor<1x16x1x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x1x5x8xf32>, tensor<1x1x5xf32>, tensor<1x1xf32>) -> tensor<1x16x1x8xf32>
  return
}

// -----

// p = 32 itself, without a state, verifies.
func.func @largest_power(%q: tensor<1x16x1x64xf32>, %k: tensor<1x16x1x64xf32>, %v: tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32> {
  %y = sympow.layer power = 32 q(%q : tensor<1x16x1x64xf32>) k(%k : tensor<1x16x1x64xf32>) v(%v : tensor<1x16x1x8xf32>) -> tensor<1x16x1x8xf32>
  return %y : tensor<1x16x1x8xf32>
}
