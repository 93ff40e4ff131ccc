// expected-error @+2 {{expected ::sympow::ElementKind to be one of: bf16, f16, f32}}
// expected-error @+1 {{failed to parse Sympow_ElementKindAttr parameter 'value'}}
module attributes {sympow.t = #sympow.dtype<f64>} {}
