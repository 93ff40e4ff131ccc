//===- Options.h - sympow-run's command line --------------------*- C++ -*-===//
//
// Parsed by hand, so the options and the reference backend need no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_RUN_OPTIONS_H
#define SYMPOW_RUN_OPTIONS_H

#include "sympow/Reference/Layer.h"
#include "sympow/Reference/Status.h"

#include <array>
#include <optional>
#include <string>

namespace sympow::run {

enum class FormulationChoice { Auto, Attention, Chunked, Recurrent };

/// S.npy, Z.npy, C.npy
using StateFiles = std::array<std::string, 3>;

struct Options {
  bool help = false;
  std::string backend;
  std::optional<int> power;
  std::string q, k, v, out;
  std::optional<std::string> logG, logGamma, beta;
  std::optional<double> ropeBase, ropeScale, warpLength, scale;
  std::optional<int64_t> ropeDims, chunkSize;
  std::optional<reference::RotaryLayout> ropeLayout;
  std::optional<reference::Schedule> schedule;
  reference::InputType dtype = reference::InputType::F32;
  FormulationChoice formulation = FormulationChoice::Auto;
  std::optional<StateFiles> initialState, finalState;
};

/// Syntax only: known flags, values present and well-formed, no repeats,
/// required flags given, backend available. Meaning is checked later.
reference::Result<Options> parseOptions(int argc, const char *const *argv);

/// The --help text.
const char *helpText();

} // namespace sympow::run

#endif // SYMPOW_RUN_OPTIONS_H
