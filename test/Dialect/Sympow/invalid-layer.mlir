// RUN: sympow-opt %s --split-input-file --verify-diagnostics

// One case per rule of sympow.layer's verifier (SPEC's contract).

// p must be even: odd powers are not a distribution.
func.func @odd_power(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 3 (odd powers give scores that are not a distribution)}}
  %y = sympow.layer power = 3 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// p >= 2.
func.func @zero_power(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 0}}
  %y = sympow.layer power = 0 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// scale > 0.
func.func @bad_scale(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{scale must be a finite number > 0, got -1}}
  %y = sympow.layer power = 2 scale = -1.0 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// q is [B, T, Hq, d].
func.func @q_rank(%q: tensor<16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'q' must be a tensor of shape [B, T, Hq, d], got 'tensor<16x4x8xf32>'}}
  %y = sympow.layer power = 2 q(%q : tensor<16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// k and q share T.
func.func @k_seq_len(%q: tensor<1x16x4x8xf32>, %k: tensor<1x8x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'k' has T = 8, but 'q' has T = 16}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x8x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// k and q share d.
func.func @k_head_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x4xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'k' has d = 4, but 'q' has d = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x4xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// v and q share B.
func.func @v_batch(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<2x16x2x8xf32>) {
  // expected-error @+1 {{'v' has B = 2, but 'q' has B = 1}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<2x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// v and k share H.
func.func @v_heads(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x4x8xf32>) {
  // expected-error @+1 {{'v' has H = 4, but 'k' has H = 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// y is [B, T, Hq, e].
func.func @y_value_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'y' has e = 4, but 'v' has e = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x4xf32>
  return
}

// -----

// y has the query heads.
func.func @y_heads(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'y' has Hq = 2, but 'q' has Hq = 4}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32>
  return
}

// -----

// d is static: kernels are specialised on it.
func.func @dynamic_head_dim(%q: tensor<1x16x4x?xf32>, %k: tensor<1x16x2x?xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{dimension d must be static (dynamic in 'q'): kernels are specialised on the head dims}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x?xf32>) k(%k : tensor<1x16x2x?xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// Hq is a multiple of H.
func.func @gqa_groups(%q: tensor<1x16x3x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{the number of query heads Hq = 3 must be a multiple of the key/value heads H = 2 (GQA)}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x3x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x3x8xf32>
  return
}

// -----

// q is bf16, f16 or f32.
func.func @q_dtype(%q: tensor<1x16x4x8xf64>, %k: tensor<1x16x2x8xf64>, %v: tensor<1x16x2x8xf64>) {
  // expected-error @+1 {{'q' must have element type bf16, f16 or f32, got 'f64'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf64>) k(%k : tensor<1x16x2x8xf64>) v(%v : tensor<1x16x2x8xf64>) -> tensor<1x16x4x8xf64>
  return
}

// -----

// k has q's element type.
func.func @k_dtype(%q: tensor<1x16x4x8xbf16>, %k: tensor<1x16x2x8xf16>, %v: tensor<1x16x2x8xbf16>) {
  // expected-error @+1 {{'k' must have the element type of 'q', 'bf16', got 'f16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xbf16>) k(%k : tensor<1x16x2x8xf16>) v(%v : tensor<1x16x2x8xbf16>) -> tensor<1x16x4x8xbf16>
  return
}

// -----

// y has v's element type.
func.func @y_dtype(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'y' must have the element type of 'v', 'f32', got 'bf16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xbf16>
  return
}

// -----

// log_g is [B, T, H].
func.func @log_g_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %g: tensor<1x16x4xf32>) {
  // expected-error @+1 {{'log_g' has H = 4, but 'k' has H = 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_g(%g : tensor<1x16x4xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// log_g is f32.
func.func @log_g_dtype(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %g: tensor<1x16x2xf16>) {
  // expected-error @+1 {{'log_g' must have element type f32, got 'f16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_g(%g : tensor<1x16x2xf16>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// log_gamma is [H].
func.func @log_gamma_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %lg: tensor<1x2xf32>) {
  // expected-error @+1 {{'log_gamma' must be a tensor of shape [H], got 'tensor<1x2xf32>'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) log_gamma(%lg : tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// beta is [B, T, H].
func.func @beta_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %b: tensor<1x15x2xf32>) {
  // expected-error @+1 {{'beta' has T = 15, but 'q' has T = 16}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) beta(%b : tensor<1x15x2xf32>) rotary = <dims = 8> schedule = <learned> -> tensor<1x16x4x8xf32>
  return
}

// -----

// A schedule rotates: it needs the rotary configuration.
func.func @schedule_needs_rotary(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'uniform' rotates q and k: it needs a rotary configuration}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}

// -----

// A rotary configuration alone rotates nothing.
func.func @rotary_needs_schedule(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{a rotary configuration needs a schedule other than 'none'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> -> tensor<1x16x4x8xf32>
  return
}

// -----

// At most d dims rotate.
func.func @rotary_dims(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{rotary dims = 16 exceed the head dim d = 8}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 16> schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}

// -----

// beta is the learned rotation rate.
func.func @beta_needs_learned(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %b: tensor<1x16x2xf32>) {
  // expected-error @+1 {{beta (the learned rotation rate) is only used by the 'learned' schedule, not 'uniform'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) beta(%b : tensor<1x16x2xf32>) rotary = <dims = 8> schedule = <uniform> -> tensor<1x16x4x8xf32>
  return
}

// -----

// The learned schedule reads beta.
func.func @learned_needs_beta(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'learned' needs beta [B, T, H]}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <learned> -> tensor<1x16x4x8xf32>
  return
}

// -----

// Warped angles have no recurrent form.
func.func @warped_not_chunked(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'warped' has no recurrent form: only the attention formulation computes it, not 'chunked'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <warped, length = 64> formulation = <chunked, chunk = 4> -> tensor<1x16x4x8xf32>
  return
}

// -----

// Blend angles have no recurrent form.
func.func @blend_not_recurrent(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'blend' has no recurrent form: only the attention formulation computes it, not 'recurrent'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <blend, length = 64> formulation = <recurrent> -> tensor<1x16x4x8xf32>
  return
}

// -----

// Warped layers have no state to start from.
func.func @warped_no_initial_state(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xf32>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{schedule 'warped' has no state: it takes no initial state and returns no final state}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>) rotary = <dims = 8> schedule = <warped, length = 64> -> tensor<1x16x4x8xf32>
  return
}

// -----

// Blend layers return no state.
func.func @blend_no_final_state(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{schedule 'blend' has no state: it takes no initial state and returns no final state}}
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) rotary = <dims = 8> schedule = <blend, length = 64> -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>
  return
}

// -----

// The state is (S, Z, c).
func.func @initial_state_count(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xf32>) {
  // expected-error @+1 {{the initial state is (S, Z, c): 3 tensors, got 2}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0 : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// S has D = C(d + p - 1, p) rows.
func.func @initial_state_dim(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x35x8xf32>, %z0: tensor<1x2x35xf32>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{'initial S' has D = 35, but phi^2 of d = 8 (C(d+p-1, p)) has D = 36}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x35x8xf32>, tensor<1x2x35xf32>, tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// States are f32.
func.func @initial_z_dtype(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>, %z0: tensor<1x2x36xbf16>, %c0: tensor<1x2xf32>) {
  // expected-error @+1 {{'initial Z' must have element type f32, got 'bf16'}}
  %y = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) initial_state(%s0, %z0, %c0 : tensor<1x2x36x8xf32>, tensor<1x2x36xbf16>, tensor<1x2xf32>) -> tensor<1x16x4x8xf32>
  return
}

// -----

// c is [B, H].
func.func @final_c_shape(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'final c' must be a tensor of shape [B, H], got 'tensor<1x2x1xf32>'}}
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2x1xf32>
  return
}

// -----

// p = 4 and d = 8: D = C(11, 4) = 330.
func.func @final_s_p4(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'final S' has D = 36, but phi^4 of d = 8 (C(d+p-1, p)) has D = 330}}
  %y, %s, %z, %c = sympow.layer power = 4 q(%q : tensor<1x16x4x8xf32>) k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>) -> tensor<1x16x4x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>, tensor<1x2xf32>
  return
}
