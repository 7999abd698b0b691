#include "models/io/weight_source.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

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

}  // namespace
}  // namespace sb
