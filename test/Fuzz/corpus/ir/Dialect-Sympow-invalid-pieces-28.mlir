// sympow.discounted_scan: the initial state has the deltas' state shape.
func.func @scan_initial(%ds: tensor<1x4x2x36xf32>, %ld: tensor<1x4x2xf32>,
                        %s0: tensor<1x2x35xf32>) {
  // expected-error @+1 {{'initial' has state dim 0 = 35, but 'deltas' has state dim 0 = 36}}
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36xf32>, tensor<1x4x2xf32>, tensor<1x2x35xf32>
  return
}
