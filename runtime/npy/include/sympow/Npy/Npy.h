//===- Npy.h - Reading and writing .npy files -------------------*- C++ -*-===//
//
// NumPy's .npy format, versions 1.0 and 2.0, C order, float32 and float64
// (either byte order on read; little-endian on write). Values are held as
// double in memory. No LLVM, no exceptions: failures come back as a message
// that names the file and the problem.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_NPY_NPY_H
#define SYMPOW_NPY_NPY_H

#include "sympow/Support/Status.h"
#include <cstdint>
#include <optional>

#include <string>
#include <vector>

namespace sympow::npy {

using sympow::Result;
using sympow::Status;

enum class DType { Float32, Float64 };

const char *toString(DType dtype); // "float32" / "float64"

struct Array {
  std::vector<int64_t> shape;
  DType dtype = DType::Float64; ///< the dtype stored in the file
  std::vector<double> data;     ///< C order

  int64_t numel() const;
};

/// Parses the bytes of a .npy file; `name` is used in messages.
Result<Array> parseNpy(const std::string &bytes, const std::string &name);

/// Reads a .npy file.
Result<Array> readNpy(const std::string &path);

/// The bytes of a version 1.0 (or 2.0 for huge headers) .npy file.
/// float32 output rounds to nearest. Fails if shape and data disagree.
Result<std::string> formatNpy(const std::vector<int64_t> &shape,
                              const std::vector<double> &data, DType dtype);

/// Writes a .npy file (creating or truncating `path`).
Status writeNpy(const std::string &path, const std::vector<int64_t> &shape,
                const std::vector<double> &data, DType dtype);

} // namespace sympow::npy

#endif // SYMPOW_NPY_NPY_H
