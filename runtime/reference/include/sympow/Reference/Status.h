//===- Status.h - Error reporting of the reference --------------*- C++ -*-===//
//
// The runtime's shared Status/Result (sympow/Support/Status.h), under the
// reference's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_STATUS_H
#define SYMPOW_REFERENCE_STATUS_H

#include "sympow/Support/Status.h"

namespace sympow::reference {
using sympow::Result;
using sympow::Status;
} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_STATUS_H
