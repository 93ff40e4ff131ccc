// expected-error @+1 {{only the chunked formulation takes a chunk size; 'attention' does not}}
module attributes {sympow.f = #sympow.formulation<attention, chunk = 16>} {}
