//===- Config.h - Variant sets from a config file ---------------*- C++ -*-===//
//
// `sympow-aot --config FILE` reads a JSON file of variant sets:
//
//   {"arch": ["sm_80", "sm_90a"],
//    "sets": [{"name": "decoder",
//              "common": "d=64,e=64,hq=8,h=8",
//              "grid": {"p": [2, 4], "dtype": ["bf16", "f16"]},
//              "variants": ["gate=data,rope=learned"]}]}
//
// Each set gives its `variants` and every combination of its `grid`, each
// prefixed by `common`. docs/KernelLibrary.md describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_AOT_CONFIG_H
#define SYMPOW_AOT_CONFIG_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace sympow::aot {

struct Config {
  std::vector<std::string> archs; // empty if the file names none
  /// Variant strings, each with where it came from ("sets[0] (decoder)").
  std::vector<std::pair<std::string, std::string>> variants;
};

/// Reads `path`; errors name the file, the set and the field.
llvm::Expected<Config> readConfig(llvm::StringRef path);

/// Parses the text of a config file; errors name it `name`.
llvm::Expected<Config> parseConfig(llvm::StringRef text, llvm::StringRef name);

/// The most variants a config may expand to (a grid multiplies its lists'
/// lengths: without a bound a short file could ask for 10^20).
constexpr size_t kMaxConfigVariants = 4096;

} // namespace sympow::aot

#endif // SYMPOW_AOT_CONFIG_H
