// A user's own DynUNet (four levels of 6, 10, 12 and 20 filters, a 1x1x1 level among the 3x3x3
// ones, two input and three output channels): the configuration read from the weights' shapes
// and MONAI's arguments in config.json, every training stage on every backend against its
// baseline with the same inference, step 0's gradients against a central difference of the
// loss, the seeded weights read back training the same trace, and each refusal naming the tensor
// or key and both values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "harness/correctness.h"
#include "models/dynunet/checkpoint.h"
#include "models/dynunet/params.h"
#include "models/dynunet/workload.h"
#include "models/io/safetensors.h"
#include "models/registry.h"
#include "tests/common/checkpoint_files.h"
#include "tests/common/stages_match.h"
#include "tests/common/temp_dir.h"

namespace sb::dynunet {
namespace {

namespace fs = std::filesystem;
using sb::testing::backend_or_null;
using sb::testing::dropping;
using sb::testing::reshaping;
using sb::testing::Spoil;
using sb::testing::TempDir;
using sb::testing::write_checkpoint;
using sb::testing::write_text;

Config user_config() {
  Config c = config_for("tiny");
  c.filters = {6, 10, 12, 20}, c.kernels = {3, 3, 1, 3}, c.strides = {1, 2, 2, 2};
  c.in_channels = 2, c.out_channels = 3;
  return c;
}

void write_user(const fs::path& path, const Spoil& spoil = {}) {
  write_checkpoint(path, Params::random(user_config(), 3), "backbone.", spoil);
}

std::string refusal(const fs::path& weights) {
  try {
    config_from_checkpoint(config_for("tiny"), weights);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

WorkloadOptions tiny(const fs::path& weights) {
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = weights;
  return o;
}

TEST(DynUnetCheckpoint, ConfigurationFromShapesAndConfigJson) {
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  const Config c = config_from_checkpoint(config_for("tiny"), dir.path());  // a folder
  EXPECT_EQ(c.filters, (std::vector<int64_t>{6, 10, 12, 20}));
  EXPECT_EQ(c.kernels, (std::vector<int64_t>{3, 3, 1, 3}));
  EXPECT_EQ(c.strides, (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(c.in_channels, 2);
  EXPECT_EQ(c.out_channels, 3);
  EXPECT_EQ(c.patch, 16);  // the preset's
  EXPECT_EQ(c.edges(), (std::vector<int64_t>{16, 8, 4, 2}));
  write_text(dir.path() / "config.json",
             R"({"spatial_dims": 3, "in_channels": 2, "out_channels": 3,
                 "kernel_size": [[3, 3, 3], 3, 1, 3], "strides": [1, 2, 2, [2, 2, 2]],
                 "upsample_kernel_size": [2, 2, 2], "filters": [6, 10, 12, 20],
                 "res_block": true, "deep_supervision": false, "trans_bias": false})");
  const Config with = config_from_checkpoint(config_for("tiny"), dir.path());
  EXPECT_EQ(with.filters, c.filters);
  EXPECT_NE(with.source.find("config.json"), std::string::npos) << with.source;
}

TEST(DynUnetCheckpoint, ContradictionsAndMissingTensorsAreRefusedByName) {
  TempDir dir;
  const fs::path w = dir.path() / "model.safetensors";
  write_user(w);
  auto json_refusal = [&](const std::string& json) {
    write_text(dir.path() / "config.json", json);
    const std::string r = refusal(w);
    fs::remove(dir.path() / "config.json");
    return r;
  };
  std::string r = json_refusal(R"({"filters": [6, 10, 16, 20]})");
  EXPECT_NE(r.find("filters is [6,10,16,20] but the weights (each level's conv1 rows) say "
                   "[6,10,12,20]"),
            std::string::npos)
      << r;
  r = json_refusal(R"({"kernel_size": [3, 3, 3, 3]})");
  EXPECT_NE(r.find("kernel_size is [3,3,3,3] but the weights"), std::string::npos) << r;
  r = json_refusal(R"({"out_channels": 1})");
  EXPECT_NE(r.find("out_channels is 1 but the weights (output_block.conv.conv.weight's rows) "
                   "say 3"),
            std::string::npos)
      << r;
  r = json_refusal(R"({"strides": [1, 2, 2, 3]})");
  EXPECT_NE(r.find("strides[3] is 3 but the weights' upsamples.0.transp_conv.conv.weight has "
                   "kernel 2"),
            std::string::npos)
      << r;
  r = json_refusal(R"({"strides": [2, 2, 2, 2]})");
  EXPECT_NE(r.find("strides[0] is 2"), std::string::npos) << r;
  r = json_refusal(R"({"strides": [1, 2, 2]})");
  EXPECT_NE(r.find("strides has 3 levels but the weights have 4"), std::string::npos) << r;
  r = json_refusal(R"({"strides": [1, 2, [2, 2, 1], 2]})");
  EXPECT_NE(r.find("strides[2] differs between the axes"), std::string::npos) << r;
  r = json_refusal(R"({"deep_supervision": true})");
  EXPECT_NE(r.find("deep_supervision is true"), std::string::npos) << r;
  r = json_refusal(R"({"spatial_dims": 2})");
  EXPECT_NE(r.find("spatial_dims is 2"), std::string::npos) << r;
  r = json_refusal(R"({"norm_eps": 1e-5})");
  EXPECT_NE(r.find("unknown key 'norm_eps'"), std::string::npos) << r;

  write_user(w, dropping("downsamples.0.conv1.conv.weight"));
  r = refusal(w);
  EXPECT_NE(r.find("'downsamples.0.conv1.conv.weight' is missing, but the file has blocks up to "
                   "downsamples.1"),
            std::string::npos)
      << r;
  write_user(w, dropping("upsamples.2.transp_conv.conv.weight"));
  r = refusal(w);
  EXPECT_NE(r.find("'upsamples.2.transp_conv.conv.weight' is missing, but the file has blocks "
                   "up to upsamples.2"),
            std::string::npos)
      << r;
  write_user(w, dropping("output_block.conv.conv.weight"));
  EXPECT_NE(refusal(w).find("missing tensor 'output_block.conv.conv.weight'"), std::string::npos);
  write_user(w, dropping("bottleneck.conv3.conv.weight"));
  EXPECT_NE(refusal(w).find("missing tensor 'bottleneck.conv3.conv.weight'"), std::string::npos);
  write_user(w, reshaping("input_block.conv1.conv.weight", {6, 54}));  // wrong rank
  r = refusal(w);
  EXPECT_NE(r.find("tensor 'input_block.conv1.conv.weight' has shape [6,54], expected 5 "
                   "dimensions"),
            std::string::npos)
      << r;
  write_user(w, reshaping("downsamples.1.conv1.conv.weight", {12, 10, 1, 1, 3}));  // not cubic
  EXPECT_NE(refusal(w).find("its kernel differs between the axes"), std::string::npos);
  write_user(w,
             reshaping("downsamples.1.conv1.conv.weight", {12, 9, 1, 1, 1}));  // breaks the chain
  r = refusal(w);
  EXPECT_NE(r.find("dimension 1 is 9, but downsamples.0's filters gives 10"), std::string::npos)
      << r;
  write_user(w, reshaping("upsamples.1.transp_conv.conv.weight", {12, 10, 3, 3, 3}));  // stride 3
  r = refusal(w);
  EXPECT_NE(r.find("level 2: stride 3 with kernel 1 and the 1x1x1 residual projection gives a "
                   "negative padding"),
            std::string::npos)
      << r;
  // A tensor the shapes do not decide is checked when the parameters are read.
  write_user(w, reshaping("bottleneck.conv2.conv.weight", {20, 20, 1, 1, 1}));
  try {
    DynUnetWorkload bad(tiny(w), make_backend("cpu", ""));
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'bottleneck.conv2.conv.weight'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("expected [20,20,3,3,3]"), std::string::npos) << e.what();
  }
}

// Five stride-2 levels below a 16-voxel patch leave no voxel to halve: refused, not run.
TEST(DynUnetCheckpoint, APatchTheLevelsCannotDivideIsRefused) {
  Config c = user_config();
  c.filters = {4, 4, 4, 4, 4, 4}, c.kernels = {3, 3, 3, 3, 3, 3}, c.strides = {1, 2, 2, 2, 2, 2};
  try {
    check_config(c);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("level 5's convolution (kernel 3, stride 2) takes 1 to 1"),
              std::string::npos)
        << e.what();
  }
  c = user_config();
  c.patch = 12;  // 12 -> 12 -> 6 -> 3, which stride 2 takes to 2, and back up to 4
  try {
    check_config(c);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("patch 12: level 3's convolution (kernel 3, stride 2) "
                                         "takes 3 to 2 voxels a side, which its up block brings "
                                         "back to 4, not 3"),
              std::string::npos)
        << e.what();
  }
  c = user_config();
  c.filters = {4, 8};  // two levels: an input block and a bottleneck, no downsamples
  c.kernels = {3, 3}, c.strides = {1, 2};
  EXPECT_NO_THROW(check_config(c));
  c.filters = {4};
  EXPECT_THROW(check_config(c), std::invalid_argument);
}

// The seeded tiny network written out (under MONAI's "backbone." prefix) and read back trains
// exactly as the seeded run.
TEST(DynUnetCheckpoint, TheSeededWeightsReadBackTrainTheSameTrace) {
  TempDir dir;
  DynUnetWorkload seeded(tiny(""), make_backend("cpu", ""));
  write_checkpoint(dir.path() / "model.safetensors", seeded.parameters(), "backbone.");
  DynUnetWorkload loaded(tiny(dir.path()), make_backend("cpu", ""));
  EXPECT_EQ(loaded.config().filters, seeded.config().filters);
  seeded.prepare(kBaseline);
  loaded.prepare(kBaseline);
  const TrainTrace a = *seeded.train_trace(kBaseline), b = *loaded.train_trace(kBaseline);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.params, b.params);
}

// The loss's derivative along step 0's gradient is the gradient's norm: the backward pass of
// the user's network against its own forward (a central difference of the loss).
TEST(DynUnetCheckpoint, UserNetworksGradientsAreTheLossDerivative) {
  TempDir dir;
  const Params init = Params::random(user_config(), 3);
  write_checkpoint(dir.path() / "init.safetensors", init);
  auto loss_and_grads = [&](const fs::path& file, std::vector<float>* grads) {
    DynUnetWorkload w(tiny(file), make_backend("cpu", ""));
    w.prepare(kBaseline);
    return w.train(kBaseline, 1, grads).loss.at(0);
  };
  std::vector<float> g;
  loss_and_grads(dir.path() / "init.safetensors", &g);
  ASSERT_EQ(static_cast<int64_t>(g.size()), init.count());
  double norm = 0;
  for (float v : g) norm += double(v) * v;
  norm = std::sqrt(norm);
  ASSERT_GT(norm, 0);
  const double h = 1e-2 / norm;  // as dynunet_trace_test: a loss step of ~1e-2
  auto shifted = [&](double sign) {
    std::vector<std::pair<std::string, TensorData>> t;
    size_t at = 0;
    for (size_t i = 0; i < init.specs().size(); ++i) {
      std::vector<float> v = init.tensors()[i].values;
      for (float& x : v) x = static_cast<float>(x + sign * h * g[at++] / norm);
      t.emplace_back(init.specs()[i].name, TensorData{"F32", init.specs()[i].shape, v});
    }
    const fs::path path = dir.path() / (sign > 0 ? "plus.safetensors" : "minus.safetensors");
    write_safetensors(path, t);
    return path;
  };
  const double derivative =
      (loss_and_grads(shifted(+1), nullptr) - loss_and_grads(shifted(-1), nullptr)) / (2 * h);
  EXPECT_NEAR(derivative / norm, 1.0, 2e-3) << "d loss along g: " << derivative << ", |g| " << norm;
}

class DynUnetUserCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(DynUnetUserCheckpoint, EveryTrainingStageMatchesItsBaseline) {
  std::string why;
  auto backend = backend_or_null(GetParam(), &why);
  if (!backend) GTEST_SKIP() << GetParam() << " backend unavailable: " << why;
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  WorkloadOptions options = tiny(dir.path() / "model.safetensors");
  // Where the later stages run in bf16 (the cpu backend's oneDNN convolutions): the documented
  // lr, as the ladder test (dynunet_ladder_test.cpp says why).
  if (backend->name() == "cpu" && backend->unsupported_reason(Precision::bf16).empty())
    options.lr = 1e-3f;
  DynUnetWorkload w(options, std::move(backend));
  EXPECT_EQ(w.parameters().count(), Params::random(user_config(), 3).count());
  const nlohmann::json p = w.params();
  EXPECT_EQ(p["filters"], nlohmann::json({6, 10, 12, 20}));
  EXPECT_EQ(p["kernels"], nlohmann::json({3, 3, 1, 3}));
  EXPECT_EQ(p["out_channels"], 3);
  EXPECT_GE(
      sb::testing::expect_training_stages_match_baseline(w, kBaseline, kStageCount, GetParam()),
      5);  // channels-last, compile, fused-optimizer, checkpointing, dataloader
  // Every layout's inference reads [N, C, P, P, P] alike.
  w.prepare(kBaseline);
  w.prepare(kChannelsLast);
  w.train_trace(kBaseline);
  w.train_trace(kChannelsLast);
  const std::vector<float> base = w.infer(kBaseline), last = w.infer(kChannelsLast);
  EXPECT_EQ(base.size(), static_cast<size_t>(3 * w.config().batch * w.config().voxels()));
  const auto r = compare(last, base, ladder()[kChannelsLast].tolerance);
  EXPECT_TRUE(r.pass) << GetParam() << " inference: " << r.reason;
}

INSTANTIATE_TEST_SUITE_P(Backends, DynUnetUserCheckpoint, ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::dynunet
