//===- LayerCheck.h - Generated kernels against the reference ---*- C++ -*-===//
//
// Random layers in SPEC's accuracy setting, the generated kernels run on the
// emulator, the f64 reference on the same inputs, and SPEC's accuracy check
// between them: what the end-to-end tests and sympow-bench share.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_COMPILER_DRIVER_LAYERCHECK_H
#define SYMPOW_COMPILER_DRIVER_LAYERCHECK_H

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Runtime/HostLayer.h"
#include "sympow/Runtime/Layer.h"

#include <string>
#include <vector>

namespace sympow::check {

/// A layer's inputs, already rounded to what the kernel reads (q, k, v to
/// the spec's dtype; the state to f32), as f64, in the runtime's host form.
struct LayerCase : runtime::HostLayer {
  bool hasState = false;
};

struct KernelResult {
  std::string error; // compile or launch problem, emulator reports
  std::vector<double> y, s, z, c;
};

struct ReferenceResult {
  std::string error;
  std::vector<double> y, s, z, c;
};

/// Random q, k, v ~ N(0, 1), log gates in log(0.9, 1), beta = 1 + tanh(N),
/// and with `withState` an initial state: the reference's final state after
/// a random prefix, rounded to f32.
LayerCase randomLayer(const AttentionKernelSpec &spec, int64_t B, int64_t T,
                      unsigned seed, bool withState);

/// A layer variant's kernels compiled once for the emulator, run on many
/// layers through the runtime (runtime::launchLayer).
class CompiledLayer {
public:
  CompiledLayer(const AttentionKernelSpec &spec,
                runtime::Formulation formulation, int64_t chunk,
                KernelTarget target = KernelTarget::EmulatorJIT,
                const std::string &cacheDir = "");
  ~CompiledLayer();
  /// Empty when the kernels compiled.
  const std::string &error() const { return problem; }
  KernelResult run(const LayerCase &layer);

private:
  runtime::LayerVariant variant;
  std::unique_ptr<CompiledLayerKernels> kernels;
  std::unique_ptr<runtime::Backend> backend;
  std::unique_ptr<runtime::KernelLibrary> library;
  std::string problem;
};

/// The layer's kernels for `formulation` (chunks of `chunk` tokens when
/// chunked), compiled and run once.
KernelResult runLayer(const AttentionKernelSpec &spec,
                      runtime::Formulation formulation, int64_t chunk,
                      const LayerCase &layer,
                      KernelTarget target = KernelTarget::EmulatorJIT,
                      const std::string &cacheDir = "");
ReferenceResult runReference(const AttentionKernelSpec &spec,
                             const LayerCase &layer);

/// One quantity's largest error against its bound in SPEC.
struct ErrorAgainstBound {
  const char *name; // y, S, Z or c
  double error, bound;
};
/// y's (and with `state` S's, Z's and c's) max |got - want| and SPEC's
/// bound for it (below).
std::vector<ErrorAgainstBound> errors(const KernelResult &got,
                                      const ReferenceResult &want,
                                      ElementKind dtype, bool state);

/// Compares `got` with `want` within SPEC's accuracy: y to 1e-4 (f32
/// inputs) or 1e-2 (bf16/f16) of max|y|; with `state`, S and Z to 1e-4 (they
/// are f32 whatever the inputs) and c to 1e-9. Empty when they match, else
/// one line per quantity off, with the error and the bound.
std::string mismatch(const KernelResult &got, const ReferenceResult &want,
                     ElementKind dtype, bool state);
/// The same from errors() already taken.
std::string mismatch(const std::vector<ErrorAgainstBound> &errors);
/// Each quantity's error as a share of its bound ("y 0.12, S 0.003, ..."):
/// how close a run that matches came to SPEC's limit.
std::string errorShares(const std::vector<ErrorAgainstBound> &errors);

double maxAbs(const std::vector<double> &x);
/// max_i |a_i - b_i|; infinity if the sizes differ or a value is NaN.
double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b);

} // namespace sympow::check

#endif // SYMPOW_COMPILER_DRIVER_LAYERCHECK_H
