// sympow.discounted_scan: deltas are [B, N, H, ...].
func.func @scan_rank(%ds: tensor<4x36xf32>, %ld: tensor<1x4x2xf32>, %s0: tensor<4x36xf32>) {
  // expected-error @+1 {{'deltas' must be a tensor of shape [B, N, H, ...], got 'tensor<4x36xf32>'}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<4x36xf32>, tensor<1x4x2xf32>, tensor<4x36xf32>
  return
}
