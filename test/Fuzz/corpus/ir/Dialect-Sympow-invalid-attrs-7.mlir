// expected-error @+2 {{expected ::sympow::ScheduleKind to be one of: none, uniform, learned, warped, blend}}
// expected-error @+1 {{failed to parse Sympow_ScheduleAttr parameter 'kind'}}
module attributes {sympow.s = #sympow.schedule<linear>} {}
