// RUN: sympow-opt %s --split-input-file --verify-diagnostics

// Rotary dims rotate in pairs.
// expected-error @+1 {{rotary dims must be even and >= 2 (dims rotate in pairs), got 7}}
module attributes {sympow.r = #sympow.rotary<dims = 7>} {}

// -----

// The rates base^(-2j/r) need a base above 1.
// expected-error @+1 {{rotary base must be a finite number > 1, got 1.000000e+00}}
module attributes {sympow.r = #sympow.rotary<base = 1.0, dims = 8>} {}

// -----

// expected-error @+1 {{rotary rate_scale must be a finite number > 0, got -2.000000e+00}}
module attributes {sympow.r = #sympow.rotary<rate_scale = -2.0, dims = 8>} {}

// -----

// The layout is interleaved or half.
// expected-error @+2 {{expected one of [interleaved, half] for which dimensions a rotary pair couples, got: split}}
// expected-error @+1 {{failed to parse Sympow_RotaryAttr parameter 'layout'}}
module attributes {sympow.r = #sympow.rotary<dims = 8, layout = split>} {}

// -----

// warped and blend need their typical length L.
// expected-error @+1 {{schedule 'warped' needs its typical length: length = L}}
module attributes {sympow.s = #sympow.schedule<warped>} {}

// -----

// expected-error @+1 {{schedule length must be >= 1, got 0}}
module attributes {sympow.s = #sympow.schedule<blend, length = 0>} {}

// -----

// expected-error @+1 {{only the warped and blend schedules take a length; 'learned' does not}}
module attributes {sympow.s = #sympow.schedule<learned, length = 8>} {}

// -----

// expected-error @+2 {{expected ::sympow::ScheduleKind to be one of: none, uniform, learned, warped, blend}}
// expected-error @+1 {{failed to parse Sympow_ScheduleAttr parameter 'kind'}}
module attributes {sympow.s = #sympow.schedule<linear>} {}

// -----

// expected-error @+1 {{the chunked formulation needs a chunk size: #sympow.formulation<chunked, chunk = C>}}
module attributes {sympow.f = #sympow.formulation<chunked>} {}

// -----

// expected-error @+1 {{chunk size must be >= 1, got 0}}
module attributes {sympow.f = #sympow.formulation<chunked, chunk = 0>} {}

// -----

// expected-error @+1 {{only the chunked formulation takes a chunk size; 'attention' does not}}
module attributes {sympow.f = #sympow.formulation<attention, chunk = 16>} {}

// -----

// expected-error @+2 {{expected ::sympow::GateKind to be one of: none, head, data, both}}
// expected-error @+1 {{failed to parse Sympow_GateKindAttr parameter 'value'}}
module attributes {sympow.g = #sympow.gate<always>} {}

// -----

// expected-error @+2 {{expected ::sympow::ElementKind to be one of: bf16, f16, f32}}
// expected-error @+1 {{failed to parse Sympow_ElementKindAttr parameter 'value'}}
module attributes {sympow.t = #sympow.dtype<f64>} {}
