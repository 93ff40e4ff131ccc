// expected-error @+1 {{only the warped and blend schedules take a length; 'learned' does not}}
module attributes {sympow.s = #sympow.schedule<learned, length = 8>} {}
