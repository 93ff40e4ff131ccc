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

/// A staging folder inside `outDir` (created if needed): every file of a
/// run is written there first, then commitStaging moves them into `outDir`
/// together; a failed run removes it and leaves `outDir` as it was.
llvm::Expected<std::string> createStaging(llvm::StringRef outDir);

/// Moves every entry of `staging` into `outDir`, replacing the entries of
/// the same name (lib/, include/, build/, report.json, the module files);
/// if a move fails, the ones done are undone and the old entries restored.
/// Removes `staging` in either case.
llvm::Error commitStaging(llvm::StringRef staging, llvm::StringRef outDir);

/// Removes a staging folder and everything in it.
void removeStaging(llvm::StringRef staging);

} // namespace sympow::aot

#endif // SYMPOW_AOT_LIBRARY_H
