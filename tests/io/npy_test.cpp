#include "models/io/npy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using testing::TempDir;
using testing::write_bytes;

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A version 1.0 file with a hand-written header and the given data bytes.
std::string npy_bytes(const std::string& header, const std::string& data) {
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

std::string read_error(const TempDir& dir, const std::string& bytes) {
  const auto path = dir.file("bad.npy");
  write_bytes(path, bytes);
  try {
    read_npy(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Npy, F32RoundTripIsExact) {
  const TempDir dir;
  const auto path = dir.file("x.npy");
  const TensorData tensor{"F32", {2, 3}, {1.5f, -2.0f, 3e-7f, 1e20f, 0.0f, -0.1f}};
  write_npy(path, tensor);
  const std::string bytes = read_all(path);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  EXPECT_EQ((bytes.size() - 24) % 64, 0u);  // numpy aligns the data to 64 bytes
  const TensorData read = read_npy(path);
  EXPECT_EQ(read.dtype, "F32");
  EXPECT_EQ(read.shape, tensor.shape);
  EXPECT_EQ(read.values, tensor.values);
}

TEST(Npy, I64RoundTripAndOneDimensionalShape) {
  const TempDir dir;
  const auto path = dir.file("tokens.npy");
  const TensorData tokens{"I64", {5}, {0.0f, 3.0f, -1.0f, 1000000.0f, 2.0f}};
  write_npy(path, tokens, "<i8");
  EXPECT_NE(read_all(path).find("'shape': (5,)"), std::string::npos);
  const TensorData read = read_npy(path);
  EXPECT_EQ(read.dtype, "I64");
  EXPECT_EQ(read.shape, tokens.shape);
  EXPECT_EQ(read.values, tokens.values);
  EXPECT_THROW(write_npy(path, TensorData{"F32", {1}, {0.5f}}, "<i8"), std::invalid_argument);
  EXPECT_THROW(write_npy(path, tokens, ">f4"), std::invalid_argument);
}

TEST(Npy, ReadsHandWrittenHeaders) {
  const TempDir dir;
  const auto path = dir.file("u8.npy");
  write_bytes(path, npy_bytes("{'shape': (2, 2), 'fortran_order': False, 'descr': '|u1'}\n",
                              std::string("\x00\x01\xff\x02", 4)));
  const TensorData read = read_npy(path);
  EXPECT_EQ(read.dtype, "U8");
  EXPECT_EQ(read.values, (std::vector<float>{0.0f, 1.0f, 255.0f, 2.0f}));
  write_bytes(path, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n",
                              std::string("\x00\x00\x80\x3f", 4)));
  const TensorData scalar = read_npy(path);
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.values, std::vector<float>{1.0f});
}

TEST(NpyErrors, BadMagic) {
  const TempDir dir;
  const std::string message = read_error(dir, "PK\x03\x04 not numpy at all");
  EXPECT_NE(message.find("bad magic"), std::string::npos) << message;
  EXPECT_NE(message.find("bad.npy"), std::string::npos) << message;
  EXPECT_NE(read_error(dir, "").find("bad magic"), std::string::npos);
}

TEST(NpyErrors, FortranOrder) {
  const TempDir dir;
  const std::string message = read_error(
      dir, npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n", "abcd"));
  EXPECT_NE(message.find("fortran_order True is not supported"), std::string::npos) << message;
}

TEST(NpyErrors, UnsupportedDtype) {
  const TempDir dir;
  const std::string big = read_error(
      dir, npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n", "abcd"));
  EXPECT_NE(big.find("unsupported dtype '>f4' (big-endian)"), std::string::npos) << big;
  const std::string complex = read_error(
      dir, npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n", "abcdefgh"));
  EXPECT_NE(complex.find("unsupported dtype '<c8'"), std::string::npos) << complex;
}

TEST(NpyErrors, TruncatedDataAndHeader) {
  const TempDir dir;
  const std::string data = read_error(
      dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", "abcd"));
  EXPECT_NE(data.find("needs 12 bytes of data, the file has 4 (truncated)"), std::string::npos)
      << data;
  std::string header = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", "");
  header.resize(30);
  const std::string cut = read_error(dir, header);
  EXPECT_NE(cut.find("larger than the file"), std::string::npos) << cut;
  const std::string garbled = read_error(dir, npy_bytes("{'descr': '<f4', 'shape': (1,", "abcd"));
  EXPECT_NE(garbled.find("npy file"), std::string::npos) << garbled;
  const std::string negative = read_error(
      dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", ""));
  EXPECT_NE(negative.find("non-negative integer"), std::string::npos) << negative;
}

}  // namespace
}  // namespace sb
