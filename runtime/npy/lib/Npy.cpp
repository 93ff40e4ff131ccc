//===- Npy.cpp - Reading and writing .npy files ---------------------------===//

#include "sympow/Npy/Npy.h"

#include "Header.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace sympow::npy {

const char *toString(DType dtype) {
  return dtype == DType::Float32 ? "float32" : "float64";
}

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicLen = 6;

static bool hostIsLittleEndian() {
  uint16_t one = 1;
  unsigned char byte;
  std::memcpy(&byte, &one, 1);
  return byte == 1;
}

/// Little-endian unsigned integer of `n` bytes at `p`.
static uint64_t readLE(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

Result<Array> parseNpy(const std::string &bytes, const std::string &name) {
  auto fail = [&](const std::string &why) {
    return Status::error("'" + name + "': " + why);
  };
  const auto *u = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < kMagicLen + 2 ||
      bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    return fail("not a .npy file (missing the \\x93NUMPY magic)");
  int major = u[6], minor = u[7];
  size_t lenBytes;
  if (major == 1 && minor == 0)
    lenBytes = 2;
  else if (major == 2 && minor == 0)
    lenBytes = 4;
  else
    return fail("npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " is not supported (only 1.0 and 2.0)");
  size_t prefix = kMagicLen + 2 + lenBytes;
  if (bytes.size() < prefix)
    return fail("truncated header");
  uint64_t headerLen = readLE(u + kMagicLen + 2, static_cast<int>(lenBytes));
  if (headerLen > bytes.size() - prefix)
    return fail("truncated header (it claims " + std::to_string(headerLen) +
                " bytes)");
  Result<detail::Header> header =
      detail::parseHeader(bytes.substr(prefix, headerLen));
  if (header.isError())
    return fail(header.message());
  const detail::Header &h = header.value();

  if (h.fortranOrder)
    return fail("Fortran-order arrays are not supported; save a C-order "
                "array (numpy.ascontiguousarray)");
  Array out;
  size_t itemSize;
  const std::string &d = h.descr;
  if (d == "<f4" || d == ">f4") {
    out.dtype = DType::Float32;
    itemSize = 4;
  } else if (d == "<f8" || d == ">f8") {
    out.dtype = DType::Float64;
    itemSize = 8;
  } else {
    return fail("unsupported dtype '" + detail::printable(d) +
                "'; only float32 ('<f4') and float64 ('<f8') are supported");
  }
  bool bigEndian = d[0] == '>';

  uint64_t count = 1;
  for (int64_t dim : h.shape) {
    if (dim != 0 && count > (uint64_t(1) << 40) / static_cast<uint64_t>(dim))
      return fail("shape is too large");
    count *= static_cast<uint64_t>(dim);
  }
  out.shape = h.shape;
  size_t dataStart = prefix + headerLen;
  uint64_t have = bytes.size() - dataStart;
  uint64_t want = count * itemSize;
  if (have < want)
    return fail("truncated data: shape needs " + std::to_string(want) +
                " bytes, the file has " + std::to_string(have));
  if (have > want)
    return fail("has " + std::to_string(have - want) +
                " unexpected bytes after the data");

  out.data.resize(count);
  bool swap = bigEndian == hostIsLittleEndian();
  const unsigned char *src = u + dataStart;
  unsigned char buf[8];
  for (uint64_t i = 0; i < count; ++i) {
    for (size_t b = 0; b < itemSize; ++b)
      buf[b] = src[i * itemSize + (swap ? itemSize - 1 - b : b)];
    if (itemSize == 4) {
      float f;
      std::memcpy(&f, buf, 4);
      out.data[i] = f;
    } else {
      std::memcpy(&out.data[i], buf, 8);
    }
  }
  return out;
}

Result<Array> readNpy(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::error("cannot read '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::error("cannot read '" + path + "': not a regular file");
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status::error("cannot read '" + path + "': " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad)
    return Status::error("cannot read '" + path + "': read error");
  return parseNpy(bytes, path);
}

Result<std::string> formatNpy(const std::vector<int64_t> &shape,
                              const std::vector<double> &data, DType dtype) {
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return Status::error("cannot write a negative dimension");
    count *= static_cast<uint64_t>(dim);
  }
  if (count != data.size())
    return Status::error("shape holds " + std::to_string(count) +
                         " values but " + std::to_string(data.size()) +
                         " were given");
  const bool f32 = dtype == DType::Float32;
  std::string header = detail::formatHeader(f32 ? "<f4" : "<f8", shape);
  // Pad with spaces and a newline so the data starts 64-byte aligned; the
  // 2-byte length of version 1.0 limits the padded header to 65535 bytes.
  auto padded = [&](size_t lenBytes) {
    size_t total = kMagicLen + 2 + lenBytes + header.size() + 1;
    return header.size() + (64 - total % 64) % 64 + 1;
  };
  size_t lenBytes = padded(2) > 65535 ? 4 : 2;
  header.append(padded(lenBytes) - header.size() - 1, ' ');
  header += '\n';

  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(lenBytes == 2 ? 1 : 2);
  out += '\0';
  for (size_t b = 0; b < lenBytes; ++b)
    out += static_cast<char>((header.size() >> (8 * b)) & 0xff);
  out += header;

  const size_t itemSize = f32 ? 4 : 8;
  const bool swap = !hostIsLittleEndian();
  unsigned char buf[8];
  for (double x : data) {
    if (f32) {
      float f = static_cast<float>(x);
      std::memcpy(buf, &f, 4);
    } else {
      std::memcpy(buf, &x, 8);
    }
    for (size_t b = 0; b < itemSize; ++b)
      out += static_cast<char>(buf[swap ? itemSize - 1 - b : b]);
  }
  return out;
}

Status writeNpy(const std::string &path, const std::vector<int64_t> &shape,
                const std::vector<double> &data, DType dtype) {
  Result<std::string> bytes = formatNpy(shape, data, dtype);
  if (bytes.isError())
    return Status::error("cannot write '" + path + "': " + bytes.message());
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status::error("cannot write '" + path +
                         "': " + std::strerror(errno));
  errno = 0;
  size_t written = std::fwrite(bytes->data(), 1, bytes->size(), f);
  int why = 0;
  if (written != bytes->size() || std::ferror(f))
    why = errno ? errno : EIO;
  // A full disk may only show when the buffer is flushed.
  if (std::fclose(f) != 0 && !why)
    why = errno ? errno : EIO;
  if (why)
    return Status::error("cannot write '" + path +
                         "': " + std::strerror(why));
  return Status::success();
}

} // namespace sympow::npy
