// sympow.angle_count: the initial count is [B, H].
func.func @angle_count_initial(%b: tensor<1x4x2xf32>, %c0: tensor<1x3xf64>) {
  // expected-error @+1 {{'initial' has H = 3, but 'beta' has H = 2}}
  %0 = sympow.angle_count schedule = <learned> beta(%b : tensor<1x4x2xf32>)
      initial(%c0 : tensor<1x3xf64>) -> tensor<1x4x2xf64>
  return
}
