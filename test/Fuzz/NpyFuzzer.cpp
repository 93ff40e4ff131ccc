//===- NpyFuzzer.cpp - The .npy reader, fuzzed ----------------------------===//
//
// libFuzzer target `sympow-fuzz-npy`: arbitrary bytes as a .npy file
// (sympow::npy::parseNpy, what readNpy does after reading the file). A file
// is read or refused with a message; what is read must be self-consistent
// and survive a write/read round trip. docs/Reliability.md.
//
//===----------------------------------------------------------------------===//

#include "sympow/Npy/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  sympow::Result<sympow::npy::Array> array =
      sympow::npy::parseNpy(bytes, "fuzz.npy");
  if (array.isError()) {
    if (array.message().empty())
      std::abort(); // a refusal must say why
    return 0;
  }
  const sympow::npy::Array &a = array.value();
  // What was read is what the header promised.
  if (a.numel() < 0 || static_cast<uint64_t>(a.numel()) != a.data.size())
    std::abort();
  // And it writes back and reads back the same (NaN payloads aside).
  sympow::Result<std::string> again =
      sympow::npy::formatNpy(a.shape, a.data, a.dtype);
  if (again.isError())
    std::abort();
  sympow::Result<sympow::npy::Array> back =
      sympow::npy::parseNpy(again.value(), "again.npy");
  if (back.isError() || back.value().shape != a.shape ||
      back.value().dtype != a.dtype ||
      back.value().data.size() != a.data.size())
    std::abort();
  for (size_t i = 0; i < a.data.size(); ++i) {
    double x = a.data[i], y = back.value().data[i];
    if (x != y && !(x != x && y != y))
      std::abort();
  }
  return 0;
}
