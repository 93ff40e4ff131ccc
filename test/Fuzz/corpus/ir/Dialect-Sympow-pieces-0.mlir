// CHECK-LABEL: func @embed
// CHECK: sympow.embed power = 2 %{{[a-z0-9_]+}} : tensor<2x64x4x16xf32> -> tensor<2x64x4x136xf32>
// CHECK: sympow.embed power = 4 %{{[a-z0-9_]+}} : tensor<?x8xbf16> -> tensor<?x330xbf16>
func.func @embed(%x: tensor<2x64x4x16xf32>, %y: tensor<?x8xbf16>)
    -> (tensor<2x64x4x136xf32>, tensor<?x330xbf16>) {
  %0 = sympow.embed power = 2 %x : tensor<2x64x4x16xf32> -> tensor<2x64x4x136xf32>
  %1 = sympow.embed power = 4 %y : tensor<?x8xbf16> -> tensor<?x330xbf16>
  return %0, %1 : tensor<2x64x4x136xf32>, tensor<?x330xbf16>
}

// CHECK-LABEL: func @rotate
// CHECK: sympow.rotate %{{[a-z0-9_]+}} by %{{[a-z0-9_]+}} rotary = <dims = 64> : tensor<2x64x8x64xbf16>, tensor<2x64x4xf64> -> tensor<2x64x8x64xbf16>
// CHECK: sympow.rotate %{{[a-z0-9_]+}} by %{{[a-z0-9_]+}} rotary = <base = 6.400000e+01, dims = 32, layout = half> : tensor<2x64x4x64xbf16>, tensor<2x64x4xf32> -> tensor<2x64x4x64xbf16>
func.func @rotate(%q: tensor<2x64x8x64xbf16>, %k: tensor<2x64x4x64xbf16>,
                  %c: tensor<2x64x4xf64>, %c32: tensor<2x64x4xf32>)
    -> (tensor<2x64x8x64xbf16>, tensor<2x64x4x64xbf16>) {
  %0 = sympow.rotate %q by %c rotary = <dims = 64>
      : tensor<2x64x8x64xbf16>, tensor<2x64x4xf64> -> tensor<2x64x8x64xbf16>
  %1 = sympow.rotate %k by %c32 rotary = <base = 64.0, dims = 32, layout = half>
      : tensor<2x64x4x64xbf16>, tensor<2x64x4xf32> -> tensor<2x64x4x64xbf16>
  return %0, %1 : tensor<2x64x8x64xbf16>, tensor<2x64x4x64xbf16>
}

// CHECK-LABEL: func @angle_count
// CHECK: sympow.angle_count schedule = <learned> beta(%{{[a-z0-9_]+}} : tensor<2x64x4xf32>) -> tensor<2x64x4xf64>
// CHECK: sympow.angle_count schedule = <uniform> initial(%{{[a-z0-9_]+}} : tensor<2x4xf64>) -> tensor<2x64x4xf64>
// CHECK: sympow.angle_count schedule = <learned> beta(%{{[a-z0-9_]+}} : tensor<2x64x4xf32>) initial(%{{[a-z0-9_]+}} : tensor<2x4xf64>) -> tensor<2x64x4xf64>
func.func @angle_count(%b: tensor<2x64x4xf32>, %c0: tensor<2x4xf64>)
    -> (tensor<2x64x4xf64>, tensor<2x64x4xf64>, tensor<2x64x4xf64>) {
  %0 = sympow.angle_count schedule = <learned> beta(%b : tensor<2x64x4xf32>)
      -> tensor<2x64x4xf64>
  %1 = sympow.angle_count schedule = <uniform> initial(%c0 : tensor<2x4xf64>)
      -> tensor<2x64x4xf64>
  %2 = sympow.angle_count schedule = <learned> beta(%b : tensor<2x64x4xf32>)
      initial(%c0 : tensor<2x4xf64>) -> tensor<2x64x4xf64>
  return %0, %1, %2 : tensor<2x64x4xf64>, tensor<2x64x4xf64>, tensor<2x64x4xf64>
}

// CHECK-LABEL: func @state_update
// CHECK: sympow.state_update power = 2 keys(%{{[a-z0-9_]+}} : tensor<1x16x2x8xf32>) values(%{{[a-z0-9_]+}} : tensor<1x16x2x4xf32>) -> tensor<1x2x36x4xf32>, tensor<1x2x36xf32>
// CHECK: sympow.state_update power = 2 keys(%{{[a-z0-9_]+}} : tensor<1x16x2x8xf32>) values(%{{[a-z0-9_]+}} : tensor<1x16x2x4xf32>) log_g(%{{[a-z0-9_]+}} : tensor<1x16x2xf32>) state(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x2x36x4xf32>, tensor<1x2x36xf32>) -> tensor<1x2x36x4xf32>, tensor<1x2x36xf32>
func.func @state_update(%k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x4xf32>,
                        %g: tensor<1x16x2xf32>) -> tensor<1x2x36x4xf32> {
  %s, %z = sympow.state_update power = 2 keys(%k : tensor<1x16x2x8xf32>)
      values(%v : tensor<1x16x2x4xf32>)
      -> tensor<1x2x36x4xf32>, tensor<1x2x36xf32>
  %s2, %z2 = sympow.state_update power = 2 keys(%k : tensor<1x16x2x8xf32>)
      values(%v : tensor<1x16x2x4xf32>) log_g(%g : tensor<1x16x2xf32>)
      state(%s, %z : tensor<1x2x36x4xf32>, tensor<1x2x36xf32>)
      -> tensor<1x2x36x4xf32>, tensor<1x2x36xf32>
  return %s2 : tensor<1x2x36x4xf32>
}

// CHECK-LABEL: func @state_query
// CHECK: sympow.state_query power = 2 scale = 0.35355339059327379 queries(%{{[a-z0-9_]+}} : tensor<1x16x4x8xbf16>) log_g(%{{[a-z0-9_]+}} : tensor<1x16x2xf32>) state(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x2x36x4xf32>, tensor<1x2x36xf32>) -> tensor<1x16x4x4xf32>, tensor<1x16x4xf32>
func.func @state_query(%q: tensor<1x16x4x8xbf16>, %g: tensor<1x16x2xf32>,
                       %s: tensor<1x2x36x4xf32>, %z: tensor<1x2x36xf32>)
    -> tensor<1x16x4x4xf32> {
  %n, %d = sympow.state_query power = 2 scale = 0.35355339059327379
      queries(%q : tensor<1x16x4x8xbf16>) log_g(%g : tensor<1x16x2xf32>)
      state(%s, %z : tensor<1x2x36x4xf32>, tensor<1x2x36xf32>)
      -> tensor<1x16x4x4xf32>, tensor<1x16x4xf32>
  return %n : tensor<1x16x4x4xf32>
}

// CHECK-LABEL: func @discounted_scan
// CHECK: sympow.discounted_scan %{{[a-z0-9_]+}} decay %{{[a-z0-9_]+}} initial %{{[a-z0-9_]+}} : tensor<1x4x2x36x8xf32>, tensor<1x4x2xf32>, tensor<1x2x36x8xf32>
// CHECK: sympow.discounted_scan %{{[a-z0-9_]+}} decay %{{[a-z0-9_]+}} initial %{{[a-z0-9_]+}} : tensor<?x?x2x36xf32>, tensor<?x?x2xf32>, tensor<?x2x36xf32>
func.func @discounted_scan(%ds: tensor<1x4x2x36x8xf32>, %ld: tensor<1x4x2xf32>,
                           %s0: tensor<1x2x36x8xf32>, %dz: tensor<?x?x2x36xf32>,
                           %ldz: tensor<?x?x2xf32>, %z0: tensor<?x2x36xf32>)
    -> tensor<1x2x36x8xf32> {
  %p, %f = sympow.discounted_scan %ds decay %ld initial %s0
      : tensor<1x4x2x36x8xf32>, tensor<1x4x2xf32>, tensor<1x2x36x8xf32>
  %pz, %fz = sympow.discounted_scan %dz decay %ldz initial %z0
      : tensor<?x?x2x36xf32>, tensor<?x?x2xf32>, tensor<?x2x36xf32>
  return %f : tensor<1x2x36x8xf32>
}

// CHECK-LABEL: func @attention_block
// CHECK: sympow.attention_block power = 2 scale = 1.250000e-01 queries(%{{[a-z0-9_]+}} : tensor<1x64x4x64xbf16>) keys(%{{[a-z0-9_]+}} : tensor<1x64x2x64xbf16>) values(%{{[a-z0-9_]+}} : tensor<1x64x2x32xbf16>) -> tensor<1x64x4x32xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>
// CHECK: sympow.attention_block power = 4 scale = 1.250000e-01 queries(%{{[a-z0-9_]+}} : tensor<1x1x4x64xbf16>) keys(%{{[a-z0-9_]+}} : tensor<1x64x2x64xbf16>) values(%{{[a-z0-9_]+}} : tensor<1x64x2x32xbf16>) log_g(%{{[a-z0-9_]+}} : tensor<1x64x2xf32>) rotary = <dims = 64> schedule = <warped, length = 32> -> tensor<1x1x4x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
func.func @attention_block(%q: tensor<1x64x4x64xbf16>, %q1: tensor<1x1x4x64xbf16>,
                           %k: tensor<1x64x2x64xbf16>, %v: tensor<1x64x2x32xbf16>,
                           %g: tensor<1x64x2xf32>) -> tensor<1x64x4x32xf32> {
  %n, %d, %m = sympow.attention_block power = 2 scale = 0.125
      queries(%q : tensor<1x64x4x64xbf16>) keys(%k : tensor<1x64x2x64xbf16>)
      values(%v : tensor<1x64x2x32xbf16>)
      -> tensor<1x64x4x32xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>
  %n1, %d1, %m1 = sympow.attention_block power = 4 scale = 0.125
      queries(%q1 : tensor<1x1x4x64xbf16>) keys(%k : tensor<1x64x2x64xbf16>)
      values(%v : tensor<1x64x2x32xbf16>) log_g(%g : tensor<1x64x2xf32>)
      rotary = <dims = 64> schedule = <warped, length = 32>
      -> tensor<1x1x4x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
  return %n : tensor<1x64x4x32xf32>
}

// CHECK-LABEL: func @combine
// CHECK: sympow.combine block(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>) state(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>) -> tensor<1x64x4x32xbf16>
// CHECK: sympow.combine block(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>, tensor<1x64x4xf32>) -> tensor<1x64x4x32xf32>
// CHECK: sympow.combine state(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>) -> tensor<1x64x4x32xf16>
func.func @combine(%n: tensor<1x64x4x32xf32>, %d: tensor<1x64x4xf32>,
                   %m: tensor<1x64x4xf32>) -> tensor<1x64x4x32xbf16> {
  %0 = sympow.combine block(%n, %d, %m : tensor<1x64x4x32xf32>,
      tensor<1x64x4xf32>, tensor<1x64x4xf32>)
      state(%n, %d : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>)
      -> tensor<1x64x4x32xbf16>
  %1 = sympow.combine block(%n, %d, %m : tensor<1x64x4x32xf32>,
      tensor<1x64x4xf32>, tensor<1x64x4xf32>) -> tensor<1x64x4x32xf32>
  %2 = sympow.combine state(%n, %d : tensor<1x64x4x32xf32>, tensor<1x64x4xf32>)
      -> tensor<1x64x4x32xf16>
  return %0 : tensor<1x64x4x32xbf16>
}
