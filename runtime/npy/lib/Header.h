//===- Header.h - The Python-literal header of a .npy file ------*- C++ -*-===//

#ifndef SYMPOW_NPY_LIB_HEADER_H
#define SYMPOW_NPY_LIB_HEADER_H

#include "sympow/Npy/Npy.h"

namespace sympow::npy::detail {

struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// `s` with bytes outside printable ASCII written as \xNN, so that text
/// from a damaged file can be quoted in a message.
std::string printable(const std::string &s);

/// Parses "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
/// Errors are phrased without the file name; the caller adds it.
Result<Header> parseHeader(const std::string &text);

/// The dict text for a C-order array of the given descr and shape.
std::string formatHeader(const std::string &descr,
                         const std::vector<int64_t> &shape);

} // namespace sympow::npy::detail

#endif // SYMPOW_NPY_LIB_HEADER_H
