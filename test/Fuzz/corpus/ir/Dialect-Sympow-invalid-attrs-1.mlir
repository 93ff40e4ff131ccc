// The rates base^(-2j/r) need a base above 1.
// expected-error @+1 {{rotary base must be a finite number > 1, got 1.000000e+00}}
module attributes {sympow.r = #sympow.rotary<base = 1.0, dims = 8>} {}
