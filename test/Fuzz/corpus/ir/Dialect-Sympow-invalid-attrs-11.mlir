// expected-error @+2 {{expected ::sympow::GateKind to be one of: none, head, data, both}}
// expected-error @+1 {{failed to parse Sympow_GateKindAttr parameter 'value'}}
module attributes {sympow.g = #sympow.gate<always>} {}
