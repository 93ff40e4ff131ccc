// sympow.rotate: query heads of a group share their kv head's counts.
func.func @rotate_groups(%x: tensor<1x4x6x8xf32>, %c: tensor<1x4x4xf64>) {
  // expected-error @+1 {{the number of query heads Hx = 6 must be a multiple of the key/value heads Hc = 4 (GQA)}}
  %0 = sympow.rotate %x by %c rotary = <dims = 8>
      : tensor<1x4x6x8xf32>, tensor<1x4x4xf64> -> tensor<1x4x6x8xf32>
  return
}
