// Hostile weight and input files (issue 16): each is refused with a message naming the file, as
// bad input (std::invalid_argument, exit 2 in the CLI), quickly and without blocking, crashing
// or building megabyte messages.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using testing::TempDir;
using testing::write_bytes;

std::string with_length(const std::string& header) {
  std::string bytes(8, '\0');
  const uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + header;
}

// The std::invalid_argument's message opening `bytes` as safetensors; fails the test otherwise.
std::string safetensors_error(const TempDir& dir, const std::string& bytes) {
  const auto path = dir.file("bad.safetensors");
  write_bytes(path, bytes);
  try {
    SafetensorsFile::open(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted, or refused as something other than bad input";
  return "";
}

// 200k entries took minutes with the callback parser (quadratic); parsed once, they take well
// under a second, so CTest's timeout catches a regression without a timing assertion.
TEST(HostileSafetensors, ManyEntriesParseInLinearTime) {
  const TempDir dir;
  constexpr size_t kEntries = 200000;
  std::string header = "{";
  for (size_t i = 0; i < kEntries; ++i) {
    if (i > 0) header += ',';
    header +=
        "\"t" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
  }
  header += "}";
  const auto path = dir.file("many.safetensors");
  write_bytes(path, with_length(header));
  const auto start = std::chrono::steady_clock::now();
  const SafetensorsFile f = SafetensorsFile::open(path);
  EXPECT_EQ(f.names().size(), kEntries);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(seconds));
}

TEST(HostileSafetensors, DeepNestingIsRefusedByDepth) {
  const TempDir dir;
  const std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string msg = safetensors_error(dir, with_length(deep));
  EXPECT_NE(msg.find("bad.safetensors"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nested deeper than 32 levels"), std::string::npos) << msg;
}

TEST(HostileSafetensors, NumberBeyondDoubleIsNamed) {
  const TempDir dir;
  const std::string msg = safetensors_error(dir, with_length(R"({"__metadata__": {"x": 1e999}})"));
  EXPECT_NE(msg.find("bad.safetensors"), std::string::npos) << msg;
}

TEST(HostileSafetensors, TooManyDimensionsAreRefused) {
  const TempDir dir;
  std::string shape = "[";
  for (int i = 0; i < 100000; ++i) shape += i ? ",1" : "1";
  shape += "]";
  const std::string msg = safetensors_error(
      dir,
      with_length(R"({"t": {"dtype": "F32", "shape": )" + shape + R"(, "data_offsets": [0, 4]}})") +
          std::string(4, '\0'));
  EXPECT_NE(msg.find("more than 64"), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 1000u);
}

std::string npy_file(const std::string& header) {
  std::string padded = header;
  padded.append(63 - (10 + padded.size()) % 64, ' ');
  padded += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x02';  // version 2: a 4-byte header length, room for a hostile header
  bytes += '\x00';
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((padded.size() >> (8 * i)) & 0xff);
  return bytes + padded;
}

// A 4M-dimension shape made an 8 MB message; it is refused by its dimension count.
TEST(HostileNpy, MillionsOfDimensionsGiveAShortMessage) {
  const TempDir dir;
  std::string shape = "(";
  for (int i = 0; i < 4000000; ++i) shape += "1,";
  shape += ")";
  const auto path = dir.file("dims.npy");
  write_bytes(path, npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }") +
                        std::string(4, '\0'));
  try {
    read_npy(path);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dims.npy"), std::string::npos) << msg.substr(0, 300);
    EXPECT_NE(msg.find("more than 64 dimensions"), std::string::npos) << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 1000u);
  }
}

TEST(HostileNpy, LongShapesAreElidedInMessages) {
  const std::string text = shape_to_string(std::vector<int64_t>(1000, 1));
  EXPECT_EQ(text, "[1,1,1,1,...,1,1,1,1] (1000 dimensions)");
  EXPECT_EQ(shape_to_string({2, 3, 4}), "[2,3,4]");
}

// Opening a FIFO for reading waits for a writer: that blocked the CLI forever.
TEST(HostileFiles, FifoIsRefusedWithoutBlocking) {
  const TempDir dir;
  const auto fifo = dir.file("pipe.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (auto read : {+[](const std::filesystem::path& p) { read_npy(p); },
                    +[](const std::filesystem::path& p) { SafetensorsFile::open(p); }}) {
    try {
      read(fifo);
      ADD_FAILURE() << "accepted a FIFO";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("pipe.npy"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sb
