// sympow.discounted_scan: one decay per chunk.
func.func @scan_decay(%ds: tensor<1x4x2x36xf32>, %ld: tensor<1x3x2xf32>,
                      %s0: tensor<1x2x36xf32>) {
  // expected-error @+1 {{'log_decay' has N = 3, but 'deltas' has N = 4}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf32>, tensor<1x3x2xf32>, tensor<1x2x36xf32>
  return
}
