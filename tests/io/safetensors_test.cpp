#include "models/io/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using testing::TempDir;
using testing::write_bytes;

std::vector<std::pair<std::string, TensorData>> sample_tensors() {
  TensorData matrix{"F32", {2, 3}, {1.0f, -2.5f, 3.25f, 1e-3f, 65000.0f, -0.0f}};
  TensorData vector{"F32", {4}, {0.1f, 0.2f, -0.3f, 7.0f}};
  TensorData scalar{"F32", {}, {42.0f}};
  TensorData empty{"F32", {0, 5}, {}};
  return {{"layer.weight", matrix}, {"layer.bias", vector}, {"scale", scalar}, {"empty", empty}};
}

// A file with a hand-written header and `data_size` zero bytes of data.
std::string raw_file(const std::string& header, size_t data_size) {
  std::string bytes(8, '\0');
  uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + header + std::string(data_size, '\0');
}

// The message of the error opening `bytes` as a safetensors file throws ("" if none).
std::string open_error(const TempDir& dir, const std::string& bytes) {
  const auto path = dir.file("bad.safetensors");
  write_bytes(path, bytes);
  try {
    SafetensorsFile::open(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class SafetensorsRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(SafetensorsRoundTrip, KeepsNamesShapesMetadataAndValues) {
  const TempDir dir;
  const auto path = dir.file("weights.safetensors");
  const auto tensors = sample_tensors();
  write_safetensors(path, tensors, GetParam(), {{"format", "pt"}, {"model", "tiny"}});

  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(file.names(),
            (std::vector<std::string>{"layer.weight", "layer.bias", "scale", "empty"}));
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_EQ(file.metadata().at("model"), "tiny");
  EXPECT_FALSE(file.contains("missing"));
  for (const auto& [name, expected] : tensors) {
    ASSERT_TRUE(file.contains(name));
    EXPECT_EQ(file.info(name).dtype, GetParam());
    const TensorData read = file.read(name);
    EXPECT_EQ(read.dtype, GetParam());
    EXPECT_EQ(read.shape, expected.shape);
    ASSERT_EQ(read.values.size(), expected.values.size());
    for (size_t i = 0; i < read.values.size(); ++i) {
      const float want = expected.values[i];
      if (GetParam() == "F32") {
        EXPECT_EQ(std::memcmp(&read.values[i], &want, sizeof want), 0) << name << "[" << i << "]";
      } else {
        const float tolerance = std::abs(want) * (GetParam() == "F16" ? 1.0f / 2048 : 1.0f / 256);
        EXPECT_NEAR(read.values[i], want, tolerance) << name << "[" << i << "]";
      }
    }
  }
  // The header is padded so the data buffer is 8-byte aligned.
  EXPECT_EQ((std::filesystem::file_size(path) - file.raw("layer.weight").size() -
             file.raw("layer.bias").size() - file.raw("scale").size()) %
                8,
            0u);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SafetensorsRoundTrip, ::testing::Values("F32", "F16", "BF16"));

TEST(Safetensors, ReadsIntegerAndF64Tensors) {
  const TempDir dir;
  // Hand-built: tokens as I64 [2], a one-hot U8 [3], an F64 scalar.
  std::string data(16 + 3 + 8, '\0');
  const int64_t tokens[2] = {7, -3};
  std::memcpy(data.data(), tokens, 16);
  data[16] = 0, data[17] = 1, data[18] = 0;
  const double pi = 3.25;
  std::memcpy(data.data() + 19, &pi, 8);
  const std::string header = R"({"tok":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
                             R"("hot":{"dtype":"U8","shape":[3],"data_offsets":[16,19]},)"
                             R"("pi":{"dtype":"F64","shape":[],"data_offsets":[19,27]}})";
  const auto path = dir.file("ints.safetensors");
  write_bytes(path, raw_file(header, 0) + data);
  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(file.read("tok").values, (std::vector<float>{7.0f, -3.0f}));
  EXPECT_EQ(file.read("hot").values, (std::vector<float>{0.0f, 1.0f, 0.0f}));
  EXPECT_EQ(file.read("pi").values, std::vector<float>{3.25f});
  EXPECT_TRUE(file.metadata().empty());
}

TEST(Safetensors, WriteRejectsBadArguments) {
  const TempDir dir;
  const auto path = dir.file("out.safetensors");
  const TensorData ok{"F32", {2}, {1.0f, 2.0f}};
  EXPECT_THROW(write_safetensors(path, {{"a", ok}}, "I8"), std::invalid_argument);
  EXPECT_THROW(write_safetensors(path, {{"a", ok}, {"a", ok}}), std::invalid_argument);
  EXPECT_THROW(write_safetensors(path, {{"a", TensorData{"F32", {3}, {1.0f}}}}),
               std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(path));
  // Nothing but the (absent) target may be left behind, not even a temporary.
  EXPECT_TRUE(std::filesystem::is_empty(dir.file("")));
  EXPECT_THROW(write_safetensors(dir.file("no/such/dir/x.safetensors"), {{"a", ok}}),
               std::runtime_error);
}

TEST(Safetensors, InfoOfAbsentTensorNamesIt) {
  const TempDir dir;
  const auto path = dir.file("w.safetensors");
  write_safetensors(path, sample_tensors());
  const SafetensorsFile file = SafetensorsFile::open(path);
  try {
    file.info("nope");
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos);
  }
}

TEST(SafetensorsErrors, TruncatedFile) {
  const TempDir dir;
  const std::string message = open_error(dir, "abc");
  EXPECT_NE(message.find("shorter than the 8-byte header length"), std::string::npos) << message;
  EXPECT_NE(message.find("bad.safetensors"), std::string::npos) << message;
  EXPECT_NE(open_error(dir, "").find("shorter"), std::string::npos);
}

TEST(SafetensorsErrors, HeaderLengthLargerThanFile) {
  const TempDir dir;
  std::string bytes = raw_file("{}", 0);
  bytes[0] = 100;
  const std::string message = open_error(dir, bytes);
  EXPECT_NE(message.find("header length 100 is larger than the file"), std::string::npos)
      << message;
}

TEST(SafetensorsErrors, AbsurdHeaderLength) {
  const TempDir dir;
  const std::string message = open_error(dir, std::string(7, '\0') + '\x7f' + "{}");
  EXPECT_NE(message.find("exceeds the 100 MB limit"), std::string::npos) << message;
}

TEST(SafetensorsErrors, HeaderNotJsonOrNotObject) {
  const TempDir dir;
  const std::string not_json = open_error(dir, raw_file("{\"a\": [1, 2", 0));
  EXPECT_NE(not_json.find("header: not valid JSON"), std::string::npos) << not_json;
  const std::string array = open_error(dir, raw_file("[1, 2]", 0));
  EXPECT_NE(array.find("header is not a JSON object"), std::string::npos) << array;
  const std::string deep =
      open_error(dir, raw_file(std::string(100000, '[') + std::string(100000, ']'), 0));
  EXPECT_NE(deep.find("nested deeper"), std::string::npos) << deep;
}

// A tensor named twice read as its last entry (issue 29): the header is refused, naming it.
TEST(SafetensorsErrors, TensorNamedTwice) {
  const TempDir dir;
  const std::string message =
      open_error(dir, raw_file(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},)"
                               R"( "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                               8));
  EXPECT_NE(message.find("bad.safetensors': header: duplicate key \"w\" at the top level"),
            std::string::npos)
      << message;
}

TEST(SafetensorsErrors, EntryMissingFields) {
  const TempDir dir;
  const std::string no_dtype =
      open_error(dir, raw_file(R"({"w":{"shape":[1],"data_offsets":[0,4]}})", 4));
  EXPECT_NE(no_dtype.find("tensor 'w': missing \"dtype\""), std::string::npos) << no_dtype;
  const std::string no_shape =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", 4));
  EXPECT_NE(no_shape.find("missing \"shape\""), std::string::npos) << no_shape;
  const std::string no_offsets =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[1]}})", 4));
  EXPECT_NE(no_offsets.find("missing \"data_offsets\""), std::string::npos) << no_offsets;
  const std::string not_object = open_error(dir, raw_file(R"({"w":3})", 0));
  EXPECT_NE(not_object.find("tensor 'w': header entry is not a JSON object"), std::string::npos)
      << not_object;
}

TEST(SafetensorsErrors, UnknownDtype) {
  const TempDir dir;
  const std::string message =
      open_error(dir, raw_file(R"({"w":{"dtype":"F8_E9","shape":[1],"data_offsets":[0,1]}})", 1));
  EXPECT_NE(message.find("tensor 'w': unknown dtype 'F8_E9'"), std::string::npos) << message;
}

TEST(SafetensorsErrors, NegativeOrNonIntegerDims) {
  const TempDir dir;
  const std::string negative =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[-1,2],"data_offsets":[0,8]}})", 8));
  EXPECT_NE(negative.find("negative dimension"), std::string::npos) << negative;
  const std::string fractional =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", 4));
  EXPECT_NE(fractional.find("non-integer"), std::string::npos) << fractional;
  const std::string huge = open_error(
      dir,
      raw_file(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4));
  EXPECT_NE(huge.find("tensor 'w'"), std::string::npos) << huge;
}

TEST(SafetensorsErrors, OffsetsOutOfRange) {
  const TempDir dir;
  const std::string past_end =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4));
  EXPECT_NE(past_end.find("tensor 'w': data_offsets [0, 8] out of range"), std::string::npos)
      << past_end;
  const std::string reversed =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", 4));
  EXPECT_NE(reversed.find("out of range"), std::string::npos) << reversed;
  const std::string negative =
      open_error(dir, raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 4));
  EXPECT_NE(negative.find("\"data_offsets\" must be two non-negative integers"), std::string::npos)
      << negative;
}

TEST(SafetensorsErrors, ShapeOffsetMismatch) {
  const TempDir dir;
  const std::string message =
      open_error(dir, raw_file(R"({"w":{"dtype":"F16","shape":[3],"data_offsets":[0,8]}})", 8));
  EXPECT_NE(
      message.find("tensor 'w': data_offsets [0, 8] span 8 bytes but shape [3] of F16 needs 6"),
      std::string::npos)
      << message;
}

TEST(SafetensorsErrors, OverlappingTensors) {
  const TempDir dir;
  const std::string message =
      open_error(dir, raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                               12));
  EXPECT_NE(message.find("tensors 'a' [0, 8] and 'b' [4, 12] overlap"), std::string::npos)
      << message;
}

TEST(SafetensorsErrors, MissingFileNamesIt) {
  const TempDir dir;
  try {
    SafetensorsFile::open(dir.file("absent.safetensors"));
    FAIL() << "no throw";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("absent.safetensors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sb
