// warped and blend need their typical length L.
// expected-error @+1 {{schedule 'warped' needs its typical length: length = L}}
module attributes {sympow.s = #sympow.schedule<warped>} {}
