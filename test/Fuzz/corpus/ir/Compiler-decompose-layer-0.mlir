// Attention: rotate by the learned counts, one block over the sequence,
// gates summed with the per-head constant.
// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x64x4x8xbf16>, %[[K:.*]]: tensor<2x64x2x8xbf16>, %[[V:.*]]: tensor<2x64x2x8xbf16>, %[[G:.*]]: tensor<2x64x2xf32>, %[[LG:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2x64x2xf32>)
// CHECK: %[[GATE:.*]] = linalg.generic {{.*}} ins(%[[LG]], %[[G]] : tensor<2xf32>, tensor<2x64x2xf32>)
// CHECK: arith.addf
// CHECK: %[[C:.*]] = sympow.angle_count schedule = <learned> beta(%[[B]] : tensor<2x64x2xf32>) -> tensor<2x64x2xf64>
// CHECK: %[[RQ:.*]] = sympow.rotate %[[Q]] by %[[C]] rotary = <dims = 8>
// CHECK: %[[RK:.*]] = sympow.rotate %[[K]] by %[[C]] rotary = <dims = 8>
// CHECK: %[[N:.*]], %[[D:.*]], %[[M:.*]] = sympow.attention_block power = 2 scale = 0.35355339059327373 queries(%[[RQ]] : tensor<2x64x4x8xbf16>) keys(%[[RK]] : tensor<2x64x2x8xbf16>) values(%[[V]] : tensor<2x64x2x8xbf16>) log_g(%[[GATE]] : tensor<2x64x2xf32>) -> tensor<2x64x4x8xf32>, tensor<2x64x4xf32>, tensor<2x64x4xf32>
// CHECK: %[[Y:.*]] = sympow.combine block(%[[N]], %[[D]], %[[M]] : {{.*}}) -> tensor<2x64x4x8xbf16>
// CHECK: return %[[Y]]
func.func @attention(%q: tensor<2x64x4x8xbf16>, %k: tensor<2x64x2x8xbf16>,
                     %v: tensor<2x64x2x8xbf16>, %g: tensor<2x64x2xf32>,
                     %lg: tensor<2xf32>, %b: tensor<2x64x2xf32>)
    -> tensor<2x64x4x8xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<2x64x4x8xbf16>)
      k(%k : tensor<2x64x2x8xbf16>) v(%v : tensor<2x64x2x8xbf16>)
      log_g(%g : tensor<2x64x2xf32>) log_gamma(%lg : tensor<2xf32>)
      beta(%b : tensor<2x64x2xf32>) rotary = <dims = 8> schedule = <learned>
      formulation = <attention> -> tensor<2x64x4x8xbf16>
  return %y : tensor<2x64x4x8xbf16>
}

// Attention with an initial state: the state is queried too, and the final
// state is one update over all tokens.
// CHECK-LABEL: func @attention_state
// CHECK-SAME: %[[S0:[a-z0-9]+]]: tensor<1x2x36x8xf32>, %[[Z0:[a-z0-9]+]]: tensor<1x2x36xf32>, %[[C0:[a-z0-9]+]]: tensor<1x2xf32>
// CHECK: %[[N:.*]], %[[D:.*]], %[[M:.*]] = sympow.attention_block
// CHECK: %[[NS:.*]], %[[DS:.*]] = sympow.state_query power = 2 {{.*}} state(%[[S0]], %[[Z0]] :
// CHECK: %[[Y:.*]] = sympow.combine block(%[[N]], %[[D]], %[[M]] : {{.*}}) state(%[[NS]], %[[DS]] : {{.*}})
// CHECK: %[[S:.*]], %[[Z:.*]] = sympow.state_update power = 2 {{.*}} state(%[[S0]], %[[Z0]] :
// CHECK: return %[[Y]], %[[S]], %[[Z]], %[[C0]]
func.func @attention_state(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                           %v: tensor<1x16x2x8xf32>, %s0: tensor<1x2x36x8xf32>,
                           %z0: tensor<1x2x36xf32>, %c0: tensor<1x2xf32>)
    -> (tensor<1x16x2x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>,
        tensor<1x2xf32>) {
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      initial_state(%s0, %z0, %c0 : tensor<1x2x36x8xf32>, tensor<1x2x36xf32>,
                    tensor<1x2xf32>)
      formulation = <attention>
      -> tensor<1x16x2x8xf32>, tensor<1x2x36x8xf32>, tensor<1x2x36xf32>,
         tensor<1x2xf32>
  return %y, %s, %z, %c : tensor<1x16x2x8xf32>, tensor<1x2x36x8xf32>,
                          tensor<1x2x36xf32>, tensor<1x2xf32>
}

// Warped: the block rotates by w(i - j) itself; no sympow.rotate.
// CHECK-LABEL: func @warped
// CHECK-NOT: sympow.rotate
// CHECK: sympow.attention_block {{.*}} rotary = <dims = 8> schedule = <warped, length = 32>
func.func @warped(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>,
                  %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  %y = sympow.layer power = 4 q(%q : tensor<1x16x2x8xf32>)
      k(%k : tensor<1x16x2x8xf32>) v(%v : tensor<1x16x2x8xf32>)
      rotary = <dims = 8> schedule = <warped, length = 32>
      formulation = <attention> -> tensor<1x16x2x8xf32>
  return %y : tensor<1x16x2x8xf32>
}

// Chunked: T = 100 padded to 7 chunks of 16 folded into the batch; each
// chunk's own state, the discounted scan with the initial state, then the
// intra-chunk block and the query against the state before each chunk.
// CHECK-LABEL: func @chunked
// CHECK-SAME: %[[S0:[a-z0-9]+]]: tensor<2x2x36x8xf32>, %[[Z0:[a-z0-9]+]]: tensor<2x2x36xf32>, %[[C0:[a-z0-9]+]]: tensor<2x2xf32>
// Uniform counts are c0 + t + 1, computed in place.
// CHECK: %[[C0E:.*]] = arith.extf %[[C0]] : tensor<2x2xf32> to tensor<2x2xf64>
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[C0E]] : tensor<2x2xf64>)
// CHECK: linalg.index 1
// CHECK: sympow.rotate {{.*}} by %[[C]]
// CHECK: tensor.pad {{.*}} high[0, 12, 0, 0]
// CHECK: tensor<2x112x4x8xbf16>
// CHECK: tensor.collapse_shape {{.*}} into tensor<14x16x4x8xbf16>
// CHECK: %[[OWNS:.*]], %[[OWNZ:.*]] = sympow.state_update power = 2 keys({{.*}} : tensor<14x16x2x8xbf16>) values({{.*}} : tensor<14x16x2x8xbf16>) log_g({{.*}} : tensor<14x16x2xf32>) -> tensor<14x2x36x8xf32>, tensor<14x2x36xf32>
// CHECK: %[[DECAY:.*]] = linalg.reduce
// CHECK: %[[DECAYN:.*]] = tensor.expand_shape %[[DECAY]] {{.*}} into tensor<2x7x2xf32>
// CHECK: %[[PS:.*]], %[[FS:.*]] = sympow.discounted_scan {{.*}} decay %[[DECAYN]] initial %[[S0]] : tensor<2x7x2x36x8xf32>, tensor<2x7x2xf32>, tensor<2x2x36x8xf32>
// CHECK: %[[PZ:.*]], %[[FZ:.*]] = sympow.discounted_scan {{.*}} decay %[[DECAYN]] initial %[[Z0]] : tensor<2x7x2x36xf32>, tensor<2x7x2xf32>, tensor<2x2x36xf32>
// CHECK: sympow.attention_block power = 2 {{.*}} -> tensor<14x16x4x8xf32>, tensor<14x16x4xf32>, tensor<14x16x4xf32>
// CHECK: sympow.state_query power = 2 {{.*}} -> tensor<14x16x4x8xf32>, tensor<14x16x4xf32>
// CHECK: sympow.combine {{.*}} -> tensor<14x16x4x8xbf16>
// CHECK: %[[Y:.*]] = tensor.extract_slice {{.*}}[0, 0, 0, 0] [2, 100, 4, 8] [1, 1, 1, 1] : tensor<2x112x4x8xbf16> to tensor<2x100x4x8xbf16>
// CHECK: %[[LAST:.*]] = tensor.extract_slice %[[C]][0, 99, 0] [2, 1, 2] [1, 1, 1] : tensor<2x100x2xf64> to tensor<2x2xf64>
// CHECK: %[[CF:.*]] = arith.truncf %[[LAST]] : tensor<2x2xf64> to tensor<2x2xf32>
// CHECK: return %[[Y]], %[[FS]], %[[FZ]], %[[CF]]
func.func @chunked(%q: tensor<2x100x4x8xbf16>, %k: tensor<2x100x2x8xbf16>,
                   %v: tensor<2x100x2x8xbf16>, %g: tensor<2x100x2xf32>,
                   %s0: tensor<2x2x36x8xf32>, %z0: tensor<2x2x36xf32>,
                   %c0: tensor<2x2xf32>)
    -> (tensor<2x100x4x8xbf16>, tensor<2x2x36x8xf32>, tensor<2x2x36xf32>,
        tensor<2x2xf32>) {
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<2x100x4x8xbf16>)
      k(%k : tensor<2x100x2x8xbf16>) v(%v : tensor<2x100x2x8xbf16>)
      log_g(%g : tensor<2x100x2xf32>)
      initial_state(%s0, %z0, %c0 : tensor<2x2x36x8xf32>, tensor<2x2x36xf32>,
                    tensor<2x2xf32>)
      rotary = <dims = 8> schedule = <uniform>
      formulation = <chunked, chunk = 16>
      -> tensor<2x100x4x8xbf16>, tensor<2x2x36x8xf32>, tensor<2x2x36xf32>,
         tensor<2x2xf32>
  return %y, %s, %z, %c : tensor<2x100x4x8xbf16>, tensor<2x2x36x8xf32>,
                          tensor<2x2x36xf32>, tensor<2x2xf32>
}

// Chunked with dynamic B and T: the chunk count is computed.
// CHECK-LABEL: func @chunked_dynamic
// CHECK: arith.ceildivsi
// CHECK: sympow.state_update {{.*}} -> tensor<?x2x36x4xf32>, tensor<?x2x36xf32>
// CHECK: sympow.discounted_scan {{.*}} : tensor<?x?x2x36x4xf32>, tensor<?x?x2xf32>, tensor<?x2x36x4xf32>
// CHECK: sympow.combine {{.*}} -> tensor<?x32x4x4xf32>
func.func @chunked_dynamic(%q: tensor<?x?x4x8xf32>, %k: tensor<?x?x2x8xf32>,
                           %v: tensor<?x?x2x4xf32>) -> tensor<?x?x4x4xf32> {
  %y = sympow.layer power = 2 q(%q : tensor<?x?x4x8xf32>)
      k(%k : tensor<?x?x2x8xf32>) v(%v : tensor<?x?x2x4xf32>)
      formulation = <chunked, chunk = 32> -> tensor<?x?x4x4xf32>
  return %y : tensor<?x?x4x4xf32>
}

// Recurrent: one token at a time, update then query.
// CHECK-LABEL: func @recurrent
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[Z:.*]] = %{{.*}}, %[[YA:.*]] = %{{.*}})
// CHECK: %[[QT:.*]] = tensor.extract_slice %{{.*}}[0, %[[T]], 0, 0] [%{{.*}}, 1, 4, 8]
// CHECK: %[[KT:.*]] = tensor.extract_slice %{{.*}}[0, %[[T]], 0, 0] [%{{.*}}, 1, 2, 8]
// CHECK: %[[S1:.*]], %[[Z1:.*]] = sympow.state_update power = 2 keys(%[[KT]] : tensor<?x1x2x8xf16>) {{.*}} state(%[[S]], %[[Z]] :
// CHECK: %[[NS:.*]], %[[DS:.*]] = sympow.state_query power = 2 {{.*}} queries(%[[QT]] : tensor<?x1x4x8xf16>) state(%[[S1]], %[[Z1]] :
// CHECK: %[[YT:.*]] = sympow.combine state(%[[NS]], %[[DS]] : {{.*}}) -> tensor<?x1x4x8xf16>
// CHECK: %[[YN:.*]] = tensor.insert_slice %[[YT]] into %[[YA]][0, %[[T]], 0, 0]
// CHECK: scf.yield %[[S1]], %[[Z1]], %[[YN]]
// CHECK: return %[[LOOP]]#2, %[[LOOP]]#0, %[[LOOP]]#1
func.func @recurrent(%q: tensor<?x?x4x8xf16>, %k: tensor<?x?x2x8xf16>,
                     %v: tensor<?x?x2x8xf16>, %s0: tensor<?x2x36x8xf32>,
                     %z0: tensor<?x2x36xf32>, %c0: tensor<?x2xf32>)
    -> (tensor<?x?x4x8xf16>, tensor<?x2x36x8xf32>, tensor<?x2x36xf32>) {
  %y, %s, %z, %c = sympow.layer power = 2 q(%q : tensor<?x?x4x8xf16>)
      k(%k : tensor<?x?x2x8xf16>) v(%v : tensor<?x?x2x8xf16>)
      initial_state(%s0, %z0, %c0 : tensor<?x2x36x8xf32>, tensor<?x2x36xf32>,
                    tensor<?x2xf32>)
      formulation = <recurrent>
      -> tensor<?x?x4x8xf16>, tensor<?x2x36x8xf32>, tensor<?x2x36xf32>,
         tensor<?x2xf32>
  return %y, %s, %z : tensor<?x?x4x8xf16>, tensor<?x2x36x8xf32>,
                      tensor<?x2x36xf32>
}

// Dynamic head counts flow through the chunked decomposition.
// CHECK-LABEL: func @dynamic_heads
// CHECK: sympow.state_update power = 2 {{.*}} -> tensor<?x?x36x8xf32>, tensor<?x?x36xf32>
// CHECK: sympow.combine {{.*}} -> tensor<?x16x?x8xbf16>
func.func @dynamic_heads(%q: tensor<?x?x?x8xbf16>, %k: tensor<?x?x?x8xbf16>,
                         %v: tensor<?x?x?x8xbf16>) -> tensor<?x?x?x8xbf16> {
  %y = sympow.layer power = 2 q(%q : tensor<?x?x?x8xbf16>)
      k(%k : tensor<?x?x?x8xbf16>) v(%v : tensor<?x?x?x8xbf16>)
      formulation = <chunked, chunk = 16> -> tensor<?x?x?x8xbf16>
  return %y : tensor<?x?x?x8xbf16>
}
