// sympow.state_update: (S, Z) together.
func.func @update_half_state(%k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>,
                             %s: tensor<1x2x36x8xf32>) {
  // expected-error @+1 {{the state is (S, Z): give both or neither}}
  %0:2 = "sympow.state_update"(%k, %v, %s) <{power = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}>
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x36x8xf32>)
      -> (tensor<1x2x36x8xf32>, tensor<1x2x36xf32>)
  return
}
