//===- sympow-run.cpp - Run one sympow layer on .npy files ----------------===//
//
// Exit status 0 on success, 2 on any error (one message on stderr, no
// output written). See docs/sympow-run.md.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "Run.h"

#include <cstdio>

int main(int argc, char **argv) {
  using namespace sympow;
  reference::Result<run::Options> options = run::parseOptions(argc, argv);
  if (options.isError()) {
    std::fprintf(stderr, "sympow-run: error: %s\n", options.message().c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(run::helpText(), stdout);
    return 0;
  }
  reference::Status st = run::runLayer(options.value());
  if (st.isError()) {
    std::fprintf(stderr, "sympow-run: error: %s\n", st.message().c_str());
    return 2;
  }
  return 0;
}
