//===- KernelRun.h - A layer on the generated kernels -----------*- C++ -*-===//

#ifndef SYMPOW_RUN_KERNELRUN_H
#define SYMPOW_RUN_KERNELRUN_H

#include "sympow/Reference/Forward.h"

#include <string>

namespace sympow::run {

/// Runs the layer on the kernels the compiler generates for it, on the
/// `emulator` or `cuda` backend: compiles them on first use (cached in
/// $SYMPOW_CACHE_DIR, default ~/.cache/sympow), launches them through the
/// runtime and reads y and the final state back. `desc` and `inputs` have
/// passed reference::validate.
reference::Result<reference::LayerOutputs>
runOnKernels(const std::string &backend, const reference::LayerDesc &desc,
             const reference::LayerInputs &inputs);

} // namespace sympow::run

#endif // SYMPOW_RUN_KERNELRUN_H
