//===- Library.h - A kernel library from built modules ----------*- C++ -*-===//
//
// DIR/lib/libsympow_kernels.{a,so}: the runtime (C API, backends, emulator)
// plus a generated registry embedding every module's images;
// DIR/include/sympow_kernels.h; DIR/lib/cmake/SympowKernels/ for
// find_package. The registry's C source is kept in DIR/build/ to read.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_AOT_LIBRARY_H
#define SYMPOW_AOT_LIBRARY_H

#include "ModuleBuild.h"

namespace sympow::aot {

/// Writes the library of `modules` (each built with the emulator image)
/// into `outDir`; the message says what failed.
llvm::Error writeLibrary(const std::vector<ModuleBuild> &modules,
                         llvm::StringRef outDir);

} // namespace sympow::aot

#endif // SYMPOW_AOT_LIBRARY_H
