//===- KernelRunner.h - The end-to-end tests' view of LayerCheck -*- C++ -*-===//
//
// The shared pieces live in sympow/Compiler/Driver/LayerCheck.h (sympow-bench
// uses them too); this adds the GoogleTest assertion.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_TEST_ENDTOEND_KERNELRUNNER_H
#define SYMPOW_TEST_ENDTOEND_KERNELRUNNER_H

#include "sympow/Compiler/Driver/LayerCheck.h"

#include <gtest/gtest.h>

namespace sympow::e2e {
using namespace sympow::check;

/// SPEC's accuracy as a test assertion; `what` names the case.
inline void expectMatches(const KernelResult &got, const ReferenceResult &want,
                          ElementKind dtype, bool state,
                          const std::string &what) {
  EXPECT_EQ(mismatch(got, want, dtype, state), "") << what;
}

} // namespace sympow::e2e

#endif // SYMPOW_TEST_ENDTOEND_KERNELRUNNER_H
