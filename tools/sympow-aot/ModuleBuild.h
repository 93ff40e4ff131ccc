//===- ModuleBuild.h - One kernel module, built for every target -*- C++
//-*-===//
//
// A module is the kernels of one variant in one formulation. Built for each
// CUDA architecture (PTX, then cubin by ptxas, with ptxas's resource report)
// and, for libraries, for the emulator (a host shared object). Results are
// cached, keyed by the compiler that runs, the target and the kernels' IR;
// builds of different modules run in parallel, each in its own MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_AOT_MODULEBUILD_H
#define SYMPOW_AOT_MODULEBUILD_H

#include "sympow/Compiler/Driver/LayerKernels.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace sympow::aot {

struct BuildOptions {
  std::vector<std::string> archs;
  std::string outDir;
  std::string cacheDir; // empty: no cache
  std::string ptxas;
  std::string libdevice;
  bool dumpStages = false;
  bool emulator = false; // also the emulator's shared object
};

struct ModuleBuild {
  std::string name; // sympow_<variant>_<formulation>, the file stem
  LayerKernelRequest request;
  std::string variant; // the request as a --variant string
  // Results.
  bool ok = false;
  bool cached = false; // nothing was compiled
  double seconds = 0;
  std::string log; // diagnostics, printed by the caller
  llvm::json::Array report;
  std::vector<runtime::KernelInfo> kernels;
  /// Files written into the output folder, relative to it: per arch its
  /// cubin and PTX, then the emulator's shared object.
  struct Image {
    std::string arch, file;
    bool ptx = false;
  };
  std::vector<Image> images;
};

/// The module name of a request.
std::string moduleName(const LayerKernelRequest &request);

/// Builds `build.request` as `options` say, filling the results.
void buildModule(ModuleBuild &build, const BuildOptions &options);

} // namespace sympow::aot

#endif // SYMPOW_AOT_MODULEBUILD_H
