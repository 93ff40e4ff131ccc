//===- HostLayer.h - One layer call from host data --------------*- C++ -*-===//
//
// For tools and tests: stages a layer held on the host as f64 into device
// buffers of the kernels' types, runs launchLayer, and reads y (and the
// state) back. Trainers use launchLayer on their own device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_HOSTLAYER_H
#define SYMPOW_RUNTIME_HOSTLAYER_H

#include "sympow/Runtime/Layer.h"

#include <vector>

namespace sympow::runtime {

/// Row-major f64 data in SPEC's shapes; absent inputs stay empty. A state
/// (s, z, c) may be given for the chunked and recurrent formulations; it
/// starts at zero otherwise.
struct HostLayer {
  int64_t B = 1, T = 1;
  std::vector<double> q, k, v, logG, logGamma, beta;
  std::vector<double> s, z, c;
};

struct HostOutputs {
  std::vector<double> y;
  std::vector<double> s, z, c; // chunked and recurrent only
};

Result<HostOutputs> runLayerFromHost(Backend &backend, KernelLibrary &library,
                                     const LayerVariant &variant,
                                     const HostLayer &layer);

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_HOSTLAYER_H
