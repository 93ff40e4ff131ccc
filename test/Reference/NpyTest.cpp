//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "sympow/Npy/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace sympow::npy;

namespace {

/// A .npy file image with the given header text and raw data.
std::string image(const std::string &dict, const std::string &data,
                  int major = 1) {
  std::string h = dict;
  size_t lenBytes = major == 1 ? 2 : 4;
  while ((10 - 2 + lenBytes + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += '\0';
  for (size_t b = 0; b < lenBytes; ++b)
    out += char((h.size() >> (8 * b)) & 0xff);
  return out + h + data;
}

std::string f32Bytes(std::vector<float> v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * 4);
}

void expectError(const Result<Array> &r, const std::string &part) {
  ASSERT_TRUE(r.isError()) << "expected an error containing: " << part;
  EXPECT_NE(r.message().find(part), std::string::npos) << r.message();
}

std::string tempPath(const char *stem) {
  return ::testing::TempDir() + stem + std::to_string(::getpid()) + ".npy";
}

} // namespace

TEST(Npy, ReadsWhatNumpyWrites) {
  // Exactly numpy.save(np.arange(6, dtype=np.float32).reshape(2, 3)).
  std::string bytes =
      image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
            f32Bytes({0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(bytes.size(), 128u + 24u);
  Result<Array> a = parseNpy(bytes, "x.npy");
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->dtype, DType::Float32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->data, (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(Npy, HeaderVariants) {
  double x = 1.5;
  std::string d(reinterpret_cast<const char *>(&x), 8);
  // Version 2.0, keys reordered, double quotes, 1-tuple, no trailing comma.
  Result<Array> a = parseNpy(
      image("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f8\"}",
            d, 2),
      "v2.npy");
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->shape, std::vector<int64_t>{1});
  EXPECT_EQ(a->data, std::vector<double>{1.5});
  // A 0-d array and an empty one.
  a = parseNpy(
      image("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", d),
      "s.npy");
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_TRUE(a->shape.empty());
  a = parseNpy(
      image("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", ""),
      "e.npy");
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_TRUE(a->data.empty());
  // Big-endian data is byte-swapped.
  std::string be("\x3f\xc0\x00\x00", 4); // 1.5f big-endian
  a = parseNpy(
      image("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", be),
      "be.npy");
  ASSERT_TRUE(a.isOk()) << a.message();
  EXPECT_EQ(a->data, std::vector<double>{1.5});
}

TEST(Npy, RejectsMalformedFiles) {
  std::string ok = f32Bytes({1, 2});
  expectError(parseNpy("hello", "a.npy"), "'a.npy': not a .npy file");
  expectError(
      parseNpy(std::string("\x93NUMPY\x03\x00\x10\x00\x00\x00", 10), "a.npy"),
      "npy format version 3.0 is not supported (only 1.0 and 2.0)");
  expectError(parseNpy(std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "a.npy"),
              "truncated header");
  expectError(
      parseNpy(
          image("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", ok),
          "a.npy"),
      "Fortran-order arrays are not supported");
  expectError(
      parseNpy(
          image("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                ok),
          "a.npy"),
      "unsupported dtype '<i4'; only float32 ('<f4') and float64 ('<f8')");
  expectError(
      parseNpy(
          image("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                ok),
          "a.npy"),
      "unsupported dtype '<f2'");
  expectError(
      parseNpy(
          image("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                ok),
          "a.npy"),
      "truncated data: shape needs 12 bytes, the file has 8");
  expectError(
      parseNpy(
          image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                ok),
          "a.npy"),
      "has 4 unexpected bytes after the data");
  expectError(parseNpy(image("{'descr': '<f4', 'shape': (2,), }", ok), "a.npy"),
              "missing key 'fortran_order'");
  expectError(parseNpy(image("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2,), 'extra': 1}",
                             ok),
                       "a.npy"),
              "unexpected key 'extra'");
  expectError(
      parseNpy(
          image("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
                ok),
          "a.npy"),
      "'shape' must be a tuple of non-negative integers");
  expectError(
      parseNpy(
          image("{'descr': '<f4', 'fortran_order': False, 'shape': 2}", ok),
          "a.npy"),
      "'shape' must be a tuple");
  expectError(parseNpy(image("['descr']", ok), "a.npy"),
              "the header is not a Python dict literal");
  expectError(
      parseNpy(image("{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(99999999999, 99999999999, 99999999999), }",
                     ok),
               "a.npy"),
      "shape is too large");
}

TEST(Npy, FileRoundTrip) {
  std::vector<double> data = {1.0 / 3, -2.5, 1e-30, 7};
  for (DType dt : {DType::Float32, DType::Float64}) {
    std::string path = tempPath("sympow_npy_roundtrip");
    ASSERT_TRUE(writeNpy(path, {2, 1, 2}, data, dt).isOk());
    Result<Array> a = readNpy(path);
    std::remove(path.c_str());
    ASSERT_TRUE(a.isOk()) << a.message();
    EXPECT_EQ(a->dtype, dt);
    EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 1, 2}));
    for (size_t i = 0; i < data.size(); ++i)
      EXPECT_EQ(a->data[i], dt == DType::Float32
                                ? double(static_cast<float>(data[i]))
                                : data[i]);
  }
}

TEST(Npy, WrittenHeaderIsAlignedAndVersion1) {
  Result<std::string> bytes = formatNpy({3}, {1, 2, 3}, DType::Float64);
  ASSERT_TRUE(bytes.isOk());
  EXPECT_EQ(bytes.value()[6], '\x01');
  EXPECT_EQ((bytes->size() - 24) % 64, 0u);
  EXPECT_NE(bytes->find("'shape': (3,)"), std::string::npos);
  EXPECT_EQ(bytes.value()[bytes->size() - 25], '\n');
  EXPECT_TRUE(formatNpy({2}, {1, 2, 3}, DType::Float32).isError());
}

TEST(Npy, FileErrorsNameThePath) {
  expectError(readNpy("/nonexistent/dir/x.npy"),
              "cannot read '/nonexistent/dir/x.npy': No such file");
  expectError(readNpy("/"), "cannot read '/': not a regular file");
  Status st = writeNpy("/nonexistent/dir/y.npy", {1}, {1}, DType::Float32);
  ASSERT_TRUE(st.isError());
  EXPECT_NE(st.message().find("cannot write '/nonexistent/dir/y.npy'"),
            std::string::npos);
}

TEST(Npy, MessagesQuoteDamagedBytesPrintably) {
  expectError(parseNpy(image("{'descr': '<f\x82', 'fortran_order': False, "
                             "'shape': (2,), }",
                             f32Bytes({1, 2})),
                       "a.npy"),
              "unsupported dtype '<f\\x82'");
}
