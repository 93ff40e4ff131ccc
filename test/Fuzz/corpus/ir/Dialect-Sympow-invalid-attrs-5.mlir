// expected-error @+1 {{schedule length must be >= 1, got 0}}
module attributes {sympow.s = #sympow.schedule<blend, length = 0>} {}
