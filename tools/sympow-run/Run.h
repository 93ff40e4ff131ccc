//===- Run.h - Executing one sympow-run invocation --------------*- C++ -*-===//

#ifndef SYMPOW_RUN_RUN_H
#define SYMPOW_RUN_RUN_H

#include "Options.h"

namespace sympow::run {

/// Loads the inputs, checks everything, computes with the reference and
/// writes the outputs. Nothing is written unless every check passed and
/// every output was produced; outputs go to temporary names first and are
/// renamed into place together.
/// Loads the inputs, checks them, runs the layer on the chosen backend and
/// writes the outputs (all or nothing).
reference::Status runLayer(const Options &options);

} // namespace sympow::run

#endif // SYMPOW_RUN_RUN_H
