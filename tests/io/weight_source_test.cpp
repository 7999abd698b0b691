#include "models/io/weight_source.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "tests/common/temp_dir.h"

namespace sb {
namespace {

using testing::TempDir;

std::string get_error(WeightSource& weights, const std::string& name,
                      const std::vector<int64_t>& shape) {
  try {
    weights.get(name, shape);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class WeightSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_safetensors(path_,
                      {{"bert.encoder.w", TensorData{"F32", {2, 2}, {1, 2, 3, 4}}},
                       {"head.b", TensorData{"F32", {2}, {5, 6}}},
                       {"backbone.stem.k", TensorData{"F32", {1}, {7}}},
                       {"extra", TensorData{"F32", {1}, {8}}}},
                      "F16");
  }
  TempDir dir_;
  std::filesystem::path path_ = dir_.file("model.safetensors");
};

TEST_F(WeightSourceTest, GetsValuesWithExactNamesAndShapes) {
  SafetensorsWeights weights(path_);
  EXPECT_TRUE(weights.has("head.b"));
  EXPECT_FALSE(weights.has("encoder.w"));
  EXPECT_EQ(weights.get("head.b", {2}), (std::vector<float>{5, 6}));
}

TEST_F(WeightSourceTest, MissingTensorMessageNamesFileAndTensor) {
  SafetensorsWeights weights(path_);
  const std::string message = get_error(weights, "head.weight", {2, 2});
  EXPECT_NE(message.find("weights file '" + path_.string() + "': missing tensor 'head.weight'"),
            std::string::npos)
      << message;
}

TEST_F(WeightSourceTest, WrongShapeMessageNamesTensorAndBothShapes) {
  SafetensorsWeights weights(path_);
  const std::string message = get_error(weights, "head.b", {1, 2});
  EXPECT_NE(message.find("tensor 'head.b' has shape [2], expected [1,2]"), std::string::npos)
      << message;
}

TEST_F(WeightSourceTest, OptionalPrefixesAreTriedInOrder) {
  SafetensorsWeights weights(path_, {"bert.", "backbone."});
  EXPECT_EQ(weights.resolve("encoder.w"), "bert.encoder.w");
  EXPECT_EQ(weights.resolve("stem.k"), "backbone.stem.k");
  EXPECT_EQ(weights.resolve("bert.head.b"), "head.b");  // a requested prefix is stripped too
  EXPECT_EQ(weights.resolve("nothing"), "");
  EXPECT_EQ(weights.get("encoder.w", {2, 2}), (std::vector<float>{1, 2, 3, 4}));
  const std::string message = get_error(weights, "stem.k", {3});
  EXPECT_NE(
      message.find("tensor 'stem.k' (stored as 'backbone.stem.k') has shape [1], expected [3]"),
      std::string::npos)
      << message;
}

TEST_F(WeightSourceTest, ListsUnusedTensors) {
  SafetensorsWeights weights(path_, {"bert."});
  weights.get("encoder.w", {2, 2});
  weights.get("head.b", {2});
  EXPECT_EQ(weights.unused(), (std::vector<std::string>{"backbone.stem.k", "extra"}));
}

// A safetensors file of one tensor "w" stored as `dtype` from its raw little-endian bytes.
std::filesystem::path raw_weights(const TempDir& dir, const std::string& dtype, size_t count,
                                  const std::string& bytes) {
  std::string header = R"({"w": {"dtype": ")" + dtype + R"(", "shape": [)" + std::to_string(count) +
                       R"(], "data_offsets": [0, )" + std::to_string(bytes.size()) + "]}}";
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return dir.write(dtype + ".safetensors", file + header + bytes);
}

// Integer tensors were read as weights (token ids' types, converted value by value): a model's
// parameters are floating point, so a checkpoint storing one as I32, I8 or BOOL is not the
// checkpoint it claims to be (issue 29).
TEST(WeightSourceHostile, IntegerDtypesAreRefusedForWeights) {
  const TempDir dir;
  for (const auto& [dtype, size] :
       {std::pair<std::string, size_t>{"I32", 4}, {"I64", 8}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}}) {
    SafetensorsWeights weights(raw_weights(dir, dtype, 2, std::string(2 * size, '\1')));
    const std::string message = get_error(weights, "w", {2});
    EXPECT_NE(message.find("tensor 'w' is stored as " + dtype +
                           ", an integer type, but the model reads it as floating-point weights"),
              std::string::npos)
        << dtype << ": " << message;
  }
  SafetensorsWeights f64(raw_weights(dir, "F64", 1, std::string(8, '\0')));
  EXPECT_EQ(f64.get("w", {1}), std::vector<float>{0.f});
}

// NaN or Inf in a checkpoint ran to NaN outputs and exit 0 (issue 29).
TEST(WeightSourceHostile, NonFiniteValuesAreRefusedNamingTheFirst) {
  const TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& [dtype, values, named] :
       {std::tuple<std::string, std::vector<float>, std::string>{
            "F32", {1, nan, inf}, "NaN at element 1"},
        {"F16", {1, 2, -inf}, "-inf at element 2"},
        {"BF16", {inf, nan, 0}, "inf at element 0"}}) {
    const auto path = dir.file(dtype + ".safetensors");
    write_safetensors(path, {{"w", TensorData{"F32", {3}, values}}}, dtype);
    SafetensorsWeights weights(path);
    const std::string message = get_error(weights, "w", {3});
    EXPECT_NE(message.find("weights file '" + path.string() + "': tensor 'w' holds " + named),
              std::string::npos)
        << dtype << ": " << message;
  }
}

}  // namespace
}  // namespace sb
