// The layout is interleaved or half.
// expected-error @+2 {{expected one of [interleaved, half] for which dimensions a rotary pair couples, got: split}}
// expected-error @+1 {{failed to parse Sympow_RotaryAttr parameter 'layout'}}
module attributes {sympow.r = #sympow.rotary<dims = 8, layout = split>} {}
