// Every attribute of the dialect, standalone (printed in name order).
// CHECK: sympow.dtypes = [#sympow.dtype<bf16>, #sympow.dtype<f16>, #sympow.dtype<f32>]
// CHECK-SAME: sympow.formulations = [#sympow.formulation<attention>, #sympow.formulation<chunked, chunk = 64>, #sympow.formulation<recurrent>]
// CHECK-SAME: sympow.gates = [#sympow.gate<none>, #sympow.gate<head>, #sympow.gate<data>, #sympow.gate<both>]
// CHECK-SAME: sympow.layouts = [#sympow.layout<interleaved>, #sympow.layout<half>]
// CHECK-SAME: sympow.rotaries = [#sympow.rotary<dims = 64>, #sympow.rotary<base = 6.553600e+04, rate_scale = 6.2831853071795862, dims = 32, layout = half>, #sympow.rotary<base = 1.000000e+02, dims = 2>]
// CHECK-SAME: sympow.schedules = [#sympow.schedule<none>, #sympow.schedule<uniform>, #sympow.schedule<learned>, #sympow.schedule<warped, length = 4096>, #sympow.schedule<blend, length = 1>]
module attributes {
  sympow.layouts = [#sympow.layout<interleaved>, #sympow.layout<half>],
  sympow.gates = [#sympow.gate<none>, #sympow.gate<head>, #sympow.gate<data>,
                  #sympow.gate<both>],
  sympow.dtypes = [#sympow.dtype<bf16>, #sympow.dtype<f16>, #sympow.dtype<f32>],
  sympow.rotaries = [#sympow.rotary<dims = 64>,
                     #sympow.rotary<base = 65536.0, rate_scale = 6.2831853071795862,
                                    dims = 32, layout = half>,
                     #sympow.rotary<layout = interleaved, dims = 2, base = 100.0,
                                    rate_scale = 1.0>],
  sympow.schedules = [#sympow.schedule<none>, #sympow.schedule<uniform>,
                      #sympow.schedule<learned>,
                      #sympow.schedule<warped, length = 4096>,
                      #sympow.schedule<blend, length = 1>],
  sympow.formulations = [#sympow.formulation<attention>,
                         #sympow.formulation<chunked, chunk = 64>,
                         #sympow.formulation<recurrent>]
} {}
