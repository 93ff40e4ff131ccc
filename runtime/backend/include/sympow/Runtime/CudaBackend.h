//===- CudaBackend.h - Kernels on a GPU through the CUDA driver -*- C++ -*-===//
//
// The driver (libcuda.so.1) is loaded at run time, so everything builds and
// runs on machines without one; creating the backend there fails with "no
// CUDA driver found". SYMPOW_CUDA_DRIVER names another driver library (the
// tests point it at a fake driver).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUNTIME_CUDABACKEND_H
#define SYMPOW_RUNTIME_CUDABACKEND_H

#include "sympow/Runtime/Backend.h"

#include <memory>

namespace sympow::runtime {

/// A backend on CUDA device `device`, in its primary context.
Result<std::unique_ptr<Backend>> createCudaBackend(int device = 0);

} // namespace sympow::runtime

#endif // SYMPOW_RUNTIME_CUDABACKEND_H
