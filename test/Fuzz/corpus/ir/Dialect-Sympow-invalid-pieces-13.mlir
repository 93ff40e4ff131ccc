// sympow.angle_count: learned needs beta.
func.func @angle_count_learned() {
  // expected-error @+1 {{schedule 'learned' needs beta [B, T, H]}}
  %0 = sympow.angle_count schedule = <learned> -> tensor<1x4x2xf64>
  return
}
