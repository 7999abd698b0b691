// A user's own Enformer (dim 120, depth 2, 5 heads with keys of 32 and values of 24, five tower
// blocks instead of six, 40/24 tracks) at 16,384 bp: the configuration read from the weights'
// shapes (with enformer-pytorch's "_trunk." aliases and bf16 tensors) and config.json, every
// ladder stage on every backend, infer at that length, and each refusal naming its problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "models/enformer/checkpoint.h"
#include "models/enformer/infer.h"
#include "models/enformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "models/registry.h"
#include "tests/common/stages_match.h"
#include "tests/common/temp_dir.h"

namespace sb::enformer {
namespace {

namespace fs = std::filesystem;
using sb::testing::TempDir;

Config user_config() {
  Config c = config_for("tiny");
  c.dim = 120, c.depth = 2, c.heads = 5, c.dk = 32, c.div = 0;
  c.filter_list = {60, 72, 84, 96, 108, 120};
  c.human_out = 40, c.mouse_out = 24;
  return c;
}

// Stored names as enformer-pytorch's state dict may keep them: the trunk's modules under their
// "_trunk.N." alias, the heads with a "model." prefix; `drop` leaves one tensor out.
std::string stored_name(const std::string& name) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"stem.", "_trunk.1."},
                                 {"conv_tower.", "_trunk.2."},
                                 {"transformer.", "_trunk.4."}})
    if (name.starts_with(from)) return to + name.substr(from.size());
  return name.starts_with("_heads.") ? "model." + name : name;
}

void write_enformer(const fs::path& path, const Config& c, const std::string& dtype,
                    const std::string& drop = "") {
  const Params p = Params::random(c, 5);
  std::vector<std::pair<std::string, TensorData>> t;
  for (const auto& spec : param_specs(c))
    if (spec.name != drop)
      t.emplace_back(stored_name(spec.name), TensorData{"F32", spec.shape, p.at(spec.name).values});
  write_safetensors(path, t, dtype);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string refusal(const WorkloadOptions& o) {
  try {
    workload_config(o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

WorkloadOptions user_options(const fs::path& weights) {
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = weights;
  o.overrides.length = 16384;
  return o;
}

TEST(EnformerCheckpoint, ConfigurationFromShapesAndConfigJson) {
  TempDir dir;
  write_enformer(dir.path() / "model.safetensors", user_config(), "BF16");
  WorkloadOptions o = user_options(dir.path());  // a folder holding model.safetensors
  const Config got = workload_config(o);
  EXPECT_EQ(got.dim, 120);
  EXPECT_EQ(got.depth, 2);
  EXPECT_EQ(got.heads, 5);
  EXPECT_EQ(got.dk, 32);
  EXPECT_EQ(got.dv(), 24);
  EXPECT_EQ(got.filters(), (std::vector<int64_t>{60, 72, 84, 96, 108, 120}));
  EXPECT_EQ(got.tower_blocks(), 5);
  EXPECT_EQ(got.pool_factor(), 64);
  EXPECT_EQ(got.tokens(), 256);
  EXPECT_EQ(got.target, 256 - 2 * 53);  // 320 of 1,536 cropped on each side, rounded down
  EXPECT_EQ(got.human_out, 40);
  EXPECT_EQ(got.mouse_out, 24);
  EXPECT_NE(describe(got).find("5 tower blocks"), std::string::npos) << describe(got);
  o.overrides.target = 100;
  EXPECT_EQ(workload_config(o).target, 100);
  o.overrides.target = 0;

  write_text(dir.path() / "config.json",
             R"({"dim": 120, "depth": 2, "heads": 5, "attn_dim_key": 32, "num_downsamples": 6,
                 "output_heads": {"human": 40, "mouse": 24}, "target_length": -1,
                 "use_tf_gamma": false})");
  const Config json = workload_config(o);
  EXPECT_EQ(json.target, 256);
  EXPECT_NE(json.target_from.find("config.json"), std::string::npos);
  write_text(dir.path() / "config.json", R"({"heads": 8})");
  const std::string contra = refusal(o);
  EXPECT_NE(contra.find("heads is 8"), std::string::npos) << contra;
  EXPECT_NE(contra.find("say 5"), std::string::npos) << contra;
  write_text(dir.path() / "config.json", R"({"use_tf_gamma": true})");
  EXPECT_NE(refusal(o).find("use_tf_gamma"), std::string::npos) << refusal(o);
  write_text(dir.path() / "config.json", R"({"target_length": 896})");
  const std::string wide = refusal(o);
  EXPECT_NE(wide.find("target 896 (config.json) must be between 1 and 256"), std::string::npos)
      << wide;
}

TEST(EnformerCheckpoint, RefusalsNameTheFirstProblem) {
  // dim 128 in 2 heads gives 64 relative features, which the three mirrored families cannot split
  Config c = config_for("tiny");
  c.dim = 128, c.heads = 2, c.div = 16;
  try {
    check_config(c);
    ADD_FAILURE() << "dim 128 with 2 heads accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 6"), std::string::npos) << e.what();
  }
  TempDir dir;
  WorkloadOptions o = user_options(dir.path() / "w.safetensors");
  write_enformer(o.weights, user_config(), "F32");
  o.overrides.length = 16032;
  EXPECT_NE(refusal(o).find("not a multiple of 64"), std::string::npos) << refusal(o);
  o.overrides.length = 16384;
  o.overrides.target = 255;
  EXPECT_NE(refusal(o).find("do not split evenly"), std::string::npos) << refusal(o);
  o.overrides.target = 0;
  const std::string v = "transformer.1.0.fn.1.to_v.weight";
  o.weights = dir.path() / "missing.safetensors";
  write_enformer(o.weights, user_config(), "F32", v);
  try {
    EnformerWorkload(o, make_backend("cpu", ""));
    ADD_FAILURE() << "a checkpoint without " << v << " accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(v), std::string::npos) << e.what();
  }
  o.weights = dir.path() / "empty_dir";
  fs::create_directories(o.weights);
  EXPECT_NE(refusal(o).find("no model.safetensors"), std::string::npos) << refusal(o);
}

// A checkpoint with transformer.0 and transformer.2 but no transformer.1 ran as a one-layer
// model, and one with a tower block missing as a shorter tower (issue 29): refused, naming the
// gap, under any spelling of the names.
TEST(EnformerCheckpoint, ALayerGapIsRefused) {
  TempDir dir;
  const Config c = user_config();
  const Params p = Params::random(c, 5);
  const auto write_renumbered = [&](const fs::path& path, const std::string& from,
                                    const std::string& to) {
    std::vector<std::pair<std::string, TensorData>> t;
    for (const auto& spec : param_specs(c)) {
      std::string name = spec.name;
      if (name.starts_with(from)) name = to + name.substr(from.size());
      t.emplace_back(stored_name(name), TensorData{"F32", spec.shape, p.at(spec.name).values});
    }
    write_safetensors(path, t, "F32");
  };
  WorkloadOptions o = user_options(dir.path() / "gap.safetensors");
  write_renumbered(o.weights, "transformer.1.", "transformer.2.");
  EXPECT_NE(refusal(o).find("transformer.1 is missing, but the file has blocks up to "
                            "transformer.2"),
            std::string::npos)
      << refusal(o);
  o.weights = dir.path() / "tower.safetensors";
  write_renumbered(o.weights, "conv_tower.2.", "conv_tower.7.");
  EXPECT_NE(refusal(o).find("conv_tower.2 is missing, but the file has blocks up to "
                            "conv_tower.7"),
            std::string::npos)
      << refusal(o);
}

// target_length 2^64-1 was read as -1, "no crop" (issue 29): a value beyond int64 is named as
// written, not wrapped.
TEST(EnformerCheckpoint, AConfigValueBeyondItsTypeIsRefusedAsWritten) {
  TempDir dir;
  write_enformer(dir.path() / "model.safetensors", user_config(), "F32");
  const WorkloadOptions o = user_options(dir.path());
  for (const std::string key : {"target_length", "depth"}) {
    write_text(dir.path() / "config.json", "{\"" + key + "\": 18446744073709551615}");
    EXPECT_NE(refusal(o).find(key + " is 18446744073709551615, beyond a 64-bit integer"),
              std::string::npos)
        << refusal(o);
  }
}

class EnformerCheckpointBackends : public ::testing::TestWithParam<std::string> {};

TEST_P(EnformerCheckpointBackends, EveryStageAndInferAt16kbp) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(GetParam(), "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
  }
  TempDir dir;
  const Config c = user_config();
  write_enformer(dir.path() / "w.safetensors", c, "F16");
  const WorkloadOptions o = user_options(dir.path() / "w.safetensors");
  EnformerWorkload w(o, std::move(backend));
  EXPECT_GE(sb::testing::expect_stages_match_baseline(w, kOriginal, GetParam()), 3);
  EXPECT_EQ(w.output(kOriginal).size(), static_cast<size_t>(150 * (240 + 40 + 24)));

  // infer at 16,384 bp of base indices, the configuration from the file
  std::vector<float> bases(16384);
  for (size_t i = 0; i < bases.size(); ++i) bases[i] = static_cast<float>((i * 7 + i / 5) % 4);
  write_npy(dir.path() / "x.npy", TensorData{"F32", {1, 16384}, bases}, "<i8");
  InferRequest req;
  req.weights = dir.path() / "w.safetensors";
  req.input = dir.path() / "x.npy";
  req.output = dir.path() / "out.safetensors";
  const InferSummary sum = run_inference(req, make_backend(GetParam(), ""));
  EXPECT_EQ(sum.size, "checkpoint");
  EXPECT_EQ(sum.length, 16384);
  EXPECT_NE(sum.config.find("5 heads (key 32, value 24)"), std::string::npos) << sum.config;
  const SafetensorsFile f = SafetensorsFile::open(req.output);
  EXPECT_EQ(f.read("embeddings").shape, (std::vector<int64_t>{1, 150, 240}));
  EXPECT_EQ(f.read("human").shape, (std::vector<int64_t>{1, 150, 40}));
}

INSTANTIATE_TEST_SUITE_P(Backends, EnformerCheckpointBackends,
                         ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::enformer
