// expected-error @+1 {{rotary rate_scale must be a finite number > 0, got -2.000000e+00}}
module attributes {sympow.r = #sympow.rotary<rate_scale = -2.0, dims = 8>} {}
