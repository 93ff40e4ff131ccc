// expected-error @+1 {{the chunked formulation needs a chunk size: #sympow.formulation<chunked, chunk = C>}}
module attributes {sympow.f = #sympow.formulation<chunked>} {}
