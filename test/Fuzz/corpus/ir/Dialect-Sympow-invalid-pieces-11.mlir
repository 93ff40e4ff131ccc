// sympow.angle_count: warped angles depend on i - j only.
func.func @angle_count_warped() {
  // expected-error @+1 {{only the uniform and learned schedules have an angle count; 'warped' depends on the age i - j only}}
  %0 = sympow.angle_count schedule = <warped, length = 8> -> tensor<1x4x2xf64>
  return
}
