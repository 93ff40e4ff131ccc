// Rotary dims rotate in pairs.
// expected-error @+1 {{rotary dims must be even and >= 2 (dims rotate in pairs), got 7}}
module attributes {sympow.r = #sympow.rotary<dims = 7>} {}
