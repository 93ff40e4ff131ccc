// sympow.angle_count: none does not rotate.
func.func @angle_count_none() {
  // expected-error @+1 {{only the uniform and learned schedules have an angle count; 'none' does not rotate}}
  %0 = sympow.angle_count schedule = <none> -> tensor<1x4x2xf64>
  return
}
