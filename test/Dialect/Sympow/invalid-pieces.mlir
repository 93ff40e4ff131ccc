// RUN: sympow-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the ops a layer decomposes into.

// sympow.embed: p even.
func.func @embed_odd_power(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{power p must be an even integer >= 2 and <= 32, got 5}}
  %0 = sympow.embed power = 5 %x : tensor<4x8xf32> -> tensor<4x792xf32>
  return
}

// -----

// sympow.embed: D = C(d + p - 1, p).
func.func @embed_wrong_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{phi^2 of d = 8 has D = C(9, 2) = 36 coordinates, but the result has 64}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<4x64xf32>
  return
}

// -----

// sympow.embed: only the last dim changes.
func.func @embed_leading_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result dim 0 is 5, but input dim 0 is 4: only the last dim changes (d -> D)}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<5x36xf32>
  return
}

// -----

// sympow.embed: same rank.
func.func @embed_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{input and result must have the same rank >= 1}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xf32> -> tensor<144xf32>
  return
}

// -----

// sympow.embed: d and D static.
func.func @embed_dynamic(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{the last dims (d and D) must be static}}
  %0 = sympow.embed power = 2 %x : tensor<4x?xf32> -> tensor<4x36xf32>
  return
}

// -----

// sympow.embed: element type kept.
func.func @embed_dtype(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{'result' must have the element type of 'input', 'bf16', got 'f32'}}
  %0 = sympow.embed power = 2 %x : tensor<4x8xbf16> -> tensor<4x36xf32>
  return
}

// -----

// sympow.rotate: query heads of a group share their kv head's counts.
func.func @rotate_groups(%x: tensor<1x4x6x8xf32>, %c: tensor<1x4x4xf64>) {
  // expected-error @+1 {{the number of query heads Hx = 6 must be a multiple of the key/value heads Hc = 4 (GQA)}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x6x8xf32>, tensor<1x4x4xf64> -> tensor<1x4x6x8xf32>
  return
}

// -----

// sympow.rotate: counts are f32 or f64.
func.func @rotate_counts_dtype(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xbf16>) {
  // expected-error @+1 {{'counts' must have element type f32 or f64, got 'bf16'}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xbf16> -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.rotate: counts per token.
func.func @rotate_counts_shape(%x: tensor<1x4x2x8xf32>, %c: tensor<1x5x2xf32>) {
  // expected-error @+1 {{'counts' has T = 5, but 'input' has T = 4}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x5x2xf32> -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.rotate: rotated dims <= d.
func.func @rotate_dims(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xf32>) {
  // expected-error @+1 {{rotary dims = 10 exceed the head dim d = 8}}
  %0 = sympow.rotate %x by %c rotary = <dims = 10>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xf32> -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.rotate: a rotation keeps the type.
func.func @rotate_result(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x2xf32>) {
  // expected-error @+1 {{result must have the input's type 'tensor<1x4x2x8xf32>', got 'tensor<1x4x2x8xf16>'}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x2x8xf32>, tensor<1x4x2xf32> -> tensor<1x4x2x8xf16>
  return
}

// -----

// sympow.angle_count: warped angles depend on i - j only.
func.func @angle_count_warped() {
  // expected-error @+1 {{only the uniform and learned schedules have an angle count; 'warped' depends on the age i - j only}}
  %0 = sympow.angle_count schedule = <warped, length = 8> -> tensor<1x4x2xf64>
  return
}

// -----

// sympow.angle_count: none does not rotate.
func.func @angle_count_none() {
  // expected-error @+1 {{only the uniform and learned schedules have an angle count; 'none' does not rotate}}
  %0 = sympow.angle_count schedule = <none> -> tensor<1x4x2xf64>
  return
}

// -----

// sympow.angle_count: learned needs beta.
func.func @angle_count_learned() {
  // expected-error @+1 {{schedule 'learned' needs beta [B, T, H]}}
  %0 = sympow.angle_count schedule = <learned> -> tensor<1x4x2xf64>
  return
}

// -----

// sympow.angle_count: uniform takes no beta.
func.func @angle_count_uniform(%b: tensor<1x4x2xf32>) {
  // expected-error @+1 {{schedule 'uniform' takes no beta}}
  %0 = sympow.angle_count schedule = <uniform> beta(%b : tensor<1x4x2xf32>)
      -> tensor<1x4x2xf64>
  return
}

// -----

// sympow.angle_count: f64 counts.
func.func @angle_count_f32(%b: tensor<1x4x2xf32>) {
  // expected-error @+1 {{'result' must have element type f64 (angles within 1e-5 rad at 64K tokens), got 'f32'}}
  %0 = sympow.angle_count schedule = <learned> beta(%b : tensor<1x4x2xf32>)
      -> tensor<1x4x2xf32>
  return
}

// -----

// sympow.angle_count: the initial count is [B, H].
func.func @angle_count_initial(%b: tensor<1x4x2xf32>, %c0: tensor<1x3xf64>) {
  // expected-error @+1 {{'initial' has H = 3, but 'beta' has H = 2}}
  %0 = sympow.angle_count schedule = <learned> beta(%b : tensor<1x4x2xf32>)
      initial(%c0 : tensor<1x3xf64>) -> tensor<1x4x2xf64>
  return
}

// -----

// sympow.state_update: (S, Z) together.
func.func @update_half_state(%k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>,
                             %s: tensor<1x2x36x8xf32>) {
  // expected-error @+1 {{the state is (S, Z): give both or neither}}
  %0:2 = "sympow.state_update"(%k, %v, %s) <{power = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}>
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x36x8xf32>)
      -> (tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
  return
}

// -----

// sympow.state_update: the state lives in phi space.
func.func @update_dim(%k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'result S' has D = 64, but phi^2 of d = 8 (C(d+p-1, p)) has D = 36}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) -> tensor<1x2x64x8xf32>, tensor<1x2x64xf32>
  return
}

// -----

// sympow.state_update: keys and values cover the same tokens.
func.func @update_block(%k: tensor<1x4x2x8xf32>, %v: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{'values' has C = 3, but 'keys' has C = 4}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x3x2x8xf32>) -> tensor<1x2x36x8xf32>, tensor<1x2x36xf32>
  return
}

// -----

// sympow.state_update: states are f32.
func.func @update_dtype(%k: tensor<1x4x2x8xbf16>, %v: tensor<1x4x2x8xbf16>) {
  // expected-error @+1 {{'result S' must have element type f32, got 'bf16'}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xbf16>) -> tensor<1x2x36x8xbf16>, tensor<1x2x36xf32>
  return
}

// -----

// sympow.state_update: keys and values share a type.
func.func @update_mixed(%k: tensor<1x4x2x8xbf16>, %v: tensor<1x4x2x8xf16>) {
  // expected-error @+1 {{'values' must have the element type of 'keys', 'bf16', got 'f16'}}
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xf16>) -> tensor<1x2x36x8xf32>, tensor<1x2x36xf32>
  return
}

// -----

// sympow.state_query: GQA groups.
func.func @query_groups(%q: tensor<1x4x3x8xf32>, %s: tensor<1x2x36x8xf32>,
                        %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{the number of query heads Hq = 3 must be a multiple of the key/value heads H = 2 (GQA)}}
  %n, %d = sympow.state_query power = 2 scale = 1.0
      queries(%q : tensor<1x4x3x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x3x8xf32>, tensor<1x4x3xf32>
  return
}

// -----

// sympow.state_query: one numerator row of e values per query head.
func.func @query_numerator(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                           %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'numerator' has e = 4, but 'S' has e = 8}}
  %n, %d = sympow.state_query power = 2 scale = 1.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x4xf32>, tensor<1x4x4xf32>
  return
}

// -----

// sympow.state_query: scale > 0.
func.func @query_scale(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                       %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{scale must be a finite number > 0, got 0}}
  %n, %d = sympow.state_query power = 2 scale = 0.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x8xf32>, tensor<1x4x4xf32>
  return
}

// -----

// sympow.state_query: p of the state.
func.func @query_power(%q: tensor<1x4x4x8xf32>, %s: tensor<1x2x36x8xf32>,
                       %z: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'S' has D = 36, but phi^4 of d = 8 (C(d+p-1, p)) has D = 330}}
  %n, %d = sympow.state_query power = 4 scale = 1.0
      queries(%q : tensor<1x4x4x8xf32>)
      state(%s, %z : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
      -> tensor<1x4x4x8xf32>, tensor<1x4x4xf32>
  return
}

// -----

// sympow.discounted_scan: deltas are [B, N, H, ...].
func.func @scan_rank(%ds: tensor<4x36xf32>, %ld: tensor<1x4x2xf32>, %s0: tensor<4x36xf32>) {
  // expected-error @+1 {{'deltas' must be a tensor of shape [B, N, H, ...], got 'tensor<4x36xf32>'}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<4x36xf32>, tensor<1x4x2xf32>, tensor<4x36xf32>
  return
}

// -----

// sympow.discounted_scan: one decay per chunk.
func.func @scan_decay(%ds: tensor<1x4x2x36xf32>, %ld: tensor<1x3x2xf32>,
                      %s0: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'log_decay' has N = 3, but 'deltas' has N = 4}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf32>, tensor<1x3x2xf32>, tensor<1x2x36xf32>
  return
}

// -----

// sympow.discounted_scan: the initial state has the deltas' state shape.
func.func @scan_initial(%ds: tensor<1x4x2x36xf32>, %ld: tensor<1x4x2xf32>,
                        %s0: tensor<1x2x35xf32>) {
  // expected-error @+1 {{'initial' has state dim 0 = 35, but 'deltas' has state dim 0 = 36}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf32>, tensor<1x4x2xf32>, tensor<1x2x35xf32>
  return
}

// -----

// sympow.discounted_scan: f32 states.
func.func @scan_dtype(%ds: tensor<1x4x2x36xf16>, %ld: tensor<1x4x2xf32>,
                      %s0: tensor<1x2x36xf16>) {
  // expected-error @+1 {{'deltas' must have element type f32, got 'f16'}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf16>, tensor<1x4x2xf32>, tensor<1x2x36xf16>
  return
}

// -----

// sympow.attention_block: causal, so at most as many queries as keys.
func.func @block_causal(%q: tensor<1x8x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                        %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{a causal block has at most as many queries as keys, got Cq = 8 > Ck = 4}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x8x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x8x2x8xf32>, tensor<1x8x2xf32>, tensor<1x8x2xf32>
  return
}

// -----

// sympow.attention_block: learned rotations happen before the block.
func.func @block_learned(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                         %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{only the warped and blend schedules rotate inside an attention block; rotate q and k for 'learned' with sympow.rotate}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) rotary = <dims = 8> schedule = <learned>
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

// sympow.attention_block: rotary and schedule together.
func.func @block_rotary_alone(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                              %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{rotary and schedule come together: a relative rotation needs both}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) rotary = <dims = 8>
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

// sympow.attention_block: gates cover the key positions.
func.func @block_gates(%q: tensor<1x2x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                       %v: tensor<1x4x2x8xf32>, %g: tensor<1x2x2xf32>) {
  // expected-error @+1 {{'log_g' has Ck = 2, but 'keys' has Ck = 4}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x2x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>) log_g(%g : tensor<1x2x2xf32>)
      -> tensor<1x2x2x8xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
  return
}

// -----

// sympow.attention_block: one running maximum per query row.
func.func @block_log_max(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>,
                         %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'log_max' must be a tensor of shape [B, Cq, Hq], got 'tensor<1x4xf32>'}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xf32>) keys(%k : tensor<1x4x2x8xf32>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4xf32>
  return
}

// -----

// sympow.attention_block: inputs share one element type.
func.func @block_dtype(%q: tensor<1x4x2x8xbf16>, %k: tensor<1x4x2x8xbf16>,
                       %v: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'values' must have the element type of 'queries', 'bf16', got 'f32'}}
  %n, %d, %m = sympow.attention_block power = 2 scale = 1.0
      queries(%q : tensor<1x4x2x8xbf16>) keys(%k : tensor<1x4x2x8xbf16>)
      values(%v : tensor<1x4x2x8xf32>)
      -> tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

// sympow.combine: something to combine.
func.func @combine_nothing() {
  // expected-error @+1 {{needs a block part, a state part or both}}
  %y = sympow.combine -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.combine: the block part has its running maximum.
func.func @combine_block_count(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>) {
  // expected-error @+1 {{the block part is (numerator, denominator, log_max): 3 tensors, got 2}}
  %y = sympow.combine block(%n, %d : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>)
      -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.combine: the state part is (numerator, denominator).
func.func @combine_state_count(%n: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{the state part is (numerator, denominator): 2 tensors, got 1}}
  %y = sympow.combine state(%n : tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.combine: parts cover the same queries.
func.func @combine_shapes(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>,
                          %m: tensor<1x4x2xf32>, %ns: tensor<1x3x2x8xf32>,
                          %ds: tensor<1x3x2xf32>) {
  // expected-error @+1 {{'state numerator' has C = 3, but 'block numerator' has C = 4}}
  %y = sympow.combine block(%n, %d, %m : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>,
      tensor<1x4x2xf32>) state(%ns, %ds : tensor<1x3x2x8xf32>, tensor<1x3x2xf32>)
      -> tensor<1x4x2x8xf32>
  return
}

// -----

// sympow.combine: y is bf16, f16 or f32.
func.func @combine_dtype(%n: tensor<1x4x2x8xf32>, %d: tensor<1x4x2xf32>) {
  // expected-error @+1 {{'result' must have element type bf16, f16 or f32, got 'f64'}}
  %y = sympow.combine state(%n, %d : tensor<1x4x2x8xf32>, tensor<1x4x2xf32>)
      -> tensor<1x4x2x8xf64>
  return
}
