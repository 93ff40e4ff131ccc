// sympow.angle_count: uniform takes no beta.
func.func @angle_count_uniform(%b: tensor<1x4x2xf32>) {
  // expected-error @+1 {{schedule 'uniform' takes no beta}}
  %0 = sympow.angle_count schedule = <uniform> beta(%b : tensor<1x4x2xf32>)
      -> tensor<1x4x2xf64>
  return
}
