//===- AotConfigFuzzer.cpp - sympow-aot's --config reader, fuzzed ---------===//
//
// libFuzzer target `sympow-fuzz-aot-config`: arbitrary bytes as a config
// file (tools/sympow-aot/Config.cpp), then each variant string it expands
// to through the variant parser sympow-aot uses (parseLayerVariant). A file
// is read or refused with a message naming it; nothing crashes, hangs or
// grows without bound (a config expands to at most kMaxConfigVariants).
//
//===----------------------------------------------------------------------===//

#include "Config.h"

#include "sympow/Compiler/Driver/LayerKernels.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<sympow::aot::Config> config =
      sympow::aot::parseConfig(text, "fuzz.json");
  if (!config) {
    std::string message = llvm::toString(config.takeError());
    if (llvm::StringRef(message).find("fuzz.json") == llvm::StringRef::npos)
      std::abort(); // every refusal names the file
    return 0;
  }
  if (config->variants.size() > sympow::aot::kMaxConfigVariants)
    std::abort();
  for (const auto &[variant, origin] : config->variants) {
    auto parsed = sympow::parseLayerVariant(variant);
    if (!parsed)
      llvm::consumeError(parsed.takeError());
  }
  return 0;
}
