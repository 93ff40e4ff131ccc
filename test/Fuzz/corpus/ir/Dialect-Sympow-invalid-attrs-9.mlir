// expected-error @+1 {{chunk size must be >= 1, got 0}}
module attributes {sympow.f = #sympow.formulation<chunked, chunk = 0>} {}
