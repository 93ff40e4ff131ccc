// sympow.angle_count: f64 counts.
func.func @angle_count_f32(%b: tensor<1x4x2xf32>) {
  // expected-error @+1 {{'result' must have element type f64 (angles within 1e-5 rad at 64K tokens), got 'f32'}}
  %0 = sympow.angle_count schedule = <learned> beta(%b : tensor<1x4x2xf32>)
      -> tensor<1x4x2xf32>
  return
}
