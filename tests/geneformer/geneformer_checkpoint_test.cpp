// A user's own BERT (3 layers, hidden 96, 3 heads of 32, intermediate 192, vocabulary 500, 128
// positions): the configuration read from the weights' shapes and config.json, "bert." names
// and fp16 tensors, a model folder, every ladder stage on every backend, infer at 77 tokens,
// and each refusal naming its problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/correctness.h"
#include "models/geneformer/checkpoint.h"
#include "models/geneformer/infer.h"
#include "models/geneformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "models/registry.h"
#include "tests/common/stages_match.h"
#include "tests/common/temp_dir.h"

namespace sb::geneformer {
namespace {

namespace fs = std::filesystem;
using sb::testing::TempDir;

Config user_config() {
  Config c = config_for("tiny");
  c.layers = 3, c.hidden = 96, c.heads = 3, c.intermediate = 192, c.vocab = 500;
  c.max_positions = 128;
  return c;
}

void write_bert(const fs::path& path, const Config& c, const std::string& prefix,
                const std::string& dtype, const std::string& drop = "") {
  const Params p = Params::random(c, 5);
  std::vector<std::pair<std::string, TensorData>> t;
  for (const auto& spec : param_specs(c))
    if (spec.name != drop)
      t.emplace_back(prefix + spec.name, TensorData{"F32", spec.shape, p.at(spec.name).values});
  t.emplace_back("cls.predictions.bias",
                 TensorData{"F32", {c.vocab}, std::vector<float>(c.vocab, 0.f)});
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

TEST(GeneformerCheckpoint, ConfigurationFromShapesAndConfigJson) {
  TempDir dir;
  const Config c = user_config();
  write_bert(dir.path() / "model.safetensors", c, "bert.", "F16");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path();  // a folder holding model.safetensors
  // hidden 96 is no multiple of 64: without config.json or --heads the heads are asked for
  EXPECT_NE(refusal(o).find("--heads"), std::string::npos) << refusal(o);
  o.overrides.heads = 5;
  EXPECT_NE(refusal(o).find("5 heads do not divide the hidden size 96"), std::string::npos);
  o.overrides = {};
  write_text(dir.path() / "config.json",
             R"({"hidden_size": 96, "num_attention_heads": 3, "layer_norm_eps": 1e-5,
                 "num_hidden_layers": 3, "vocab_size": 500, "intermediate_size": 192,
                 "max_position_embeddings": 128, "hidden_act": "relu"})");
  const Config got = workload_config(o);
  EXPECT_EQ(got.layers, 3);
  EXPECT_EQ(got.hidden, 96);
  EXPECT_EQ(got.heads, 3);
  EXPECT_EQ(got.intermediate, 192);
  EXPECT_EQ(got.vocab, 500);
  EXPECT_EQ(got.max_positions, 128);
  EXPECT_FLOAT_EQ(got.eps, 1e-5f);
  EXPECT_EQ(got.heads_from, "config.json");
  o.overrides.eps = 1e-6f;
  EXPECT_FLOAT_EQ(workload_config(o).eps, 1e-6f);
  o.overrides = {};
  write_text(dir.path() / "config.json", R"({"hidden_size": 128, "num_attention_heads": 4})");
  const std::string contra = refusal(o);
  EXPECT_NE(contra.find("hidden_size is 128"), std::string::npos) << contra;
  EXPECT_NE(contra.find("say 96"), std::string::npos) << contra;
  write_text(dir.path() / "config.json", R"({"num_attention_heads": 3, "hidden_act": "gelu"})");
  EXPECT_EQ(workload_config(o).activation, Act::gelu_erf);
  write_text(dir.path() / "config.json", R"({"num_attention_heads": 3, "hidden_act": "gelu_new"})");
  EXPECT_NE(refusal(o).find("hidden_act is \"gelu_new\""), std::string::npos) << refusal(o);
  // A BERT of hidden 128 without config.json: heads assumed hidden/64 and said so.
  fs::create_directories(dir.path() / "wide");
  const fs::path wide = dir.path() / "wide" / "w.safetensors";
  Config w = c;
  w.hidden = 128, w.heads = 2;
  write_bert(wide, w, "", "F32");
  o.weights = wide;
  const Config assumed = workload_config(o);
  EXPECT_EQ(assumed.heads, 2);
  EXPECT_NE(describe(assumed).find("assumed"), std::string::npos) << describe(assumed);
}

TEST(GeneformerCheckpoint, RefusalsNameTheFirstProblem) {
  TempDir dir;
  const Config c = user_config();
  WorkloadOptions o;
  o.size = "tiny";
  o.overrides.heads = 3;
  const std::string q = "encoder.layer.1.attention.self.query.weight";
  o.weights = dir.path() / "missing.safetensors";
  write_bert(o.weights, c, "", "F32", q);
  EXPECT_THROW(
      {
        try {
          GeneformerWorkload(o, make_backend("cpu", ""));
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find(q), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  o.weights = dir.path() / "one_layer.safetensors";
  Config two = c;
  two.layers = 1;
  write_bert(o.weights, two, "", "F32");
  EXPECT_EQ(workload_config(o).layers, 1);
  o.weights = dir.path() / "empty_dir";
  fs::create_directories(o.weights);
  EXPECT_NE(refusal(o).find("no model.safetensors"), std::string::npos) << refusal(o);
}

// A config.json value beyond int64 was wrapped (2^64-1 read as -1); it is refused as written
// (issue 29).
TEST(GeneformerCheckpoint, AConfigValueBeyondItsTypeIsRefusedAsWritten) {
  TempDir dir;
  write_bert(dir.path() / "model.safetensors", user_config(), "bert.", "F32");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path();
  for (const std::string key : {"num_attention_heads", "num_hidden_layers"}) {
    write_text(dir.path() / "config.json", "{\"" + key + "\": 18446744073709551615}");
    EXPECT_NE(refusal(o).find(key + " is 18446744073709551615, beyond a 64-bit integer"),
              std::string::npos)
        << refusal(o);
  }
}

class GeneformerCheckpointBackends : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneformerCheckpointBackends, EveryStageAndInferAt77Tokens) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(GetParam(), "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
  }
  TempDir dir;
  const Config c = user_config();
  write_bert(dir.path() / "w.safetensors", c, "bert.", "F16");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path() / "w.safetensors";
  o.overrides.heads = 3;
  o.calibration.batches = 1;
  o.perturbed_genes = 4;
  GeneformerWorkload w(o, std::move(backend));
  EXPECT_EQ(w.config().head_dim(), 32);
  EXPECT_GE(sb::testing::expect_stages_match_baseline(w, kEager, GetParam()), 2);
  EXPECT_EQ(w.output(kEager).size(), static_cast<size_t>(w.config().batch * 96));

  // infer at 77 tokens (padding in the second cell) with a config.json for heads
  write_text(dir.path() / "config.json", R"({"num_attention_heads": 3})");
  std::vector<float> ids(2 * 77, 0.f);
  for (int t = 0; t < 77; ++t) ids[t] = static_cast<float>(2 + t);
  for (int t = 0; t < 50; ++t) ids[77 + t] = static_cast<float>(300 + t);
  write_npy(dir.path() / "ids.npy", TensorData{"F32", {2, 77}, ids}, "<i8");
  InferRequest req;
  req.size = "full";
  req.weights = dir.path() / "w.safetensors";
  req.input = dir.path() / "ids.npy";
  req.output = dir.path() / "out.safetensors";
  const InferSummary sum = run_inference(req, make_backend(GetParam(), ""));
  EXPECT_EQ(sum.tokens, 77);
  EXPECT_EQ(sum.layers, 3);
  EXPECT_NE(sum.configuration.find("3 heads of 32 (config.json)"), std::string::npos)
      << sum.configuration;
  const SafetensorsFile f = SafetensorsFile::open(req.output);
  EXPECT_EQ(f.read("hidden_states.3").shape, (std::vector<int64_t>{2, 77, 96}));
}

// Odd widths: hidden 99 in 3 heads of 33 (the kernels' tiles do not divide it), and one head of
// 130, wider than any OpenCL fused kernel: that stage falls back to unfused attention and says so.
TEST_P(GeneformerCheckpointBackends, OddHeadWidthsRunEveryStage) {
  for (const auto& [hidden, heads] : {std::pair<int64_t, int64_t>{99, 3}, {130, 1}}) {
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(GetParam(), "");
    } catch (const std::exception& e) {
      GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
    }
    TempDir dir;
    Config c = user_config();
    c.layers = 2, c.hidden = hidden, c.heads = heads, c.intermediate = 67, c.max_positions = 64;
    write_bert(dir.path() / "w.safetensors", c, "", "BF16");
    WorkloadOptions o;
    o.size = "tiny";
    o.weights = dir.path() / "w.safetensors";
    o.overrides.heads = heads;
    o.calibration.batches = 1;
    o.perturbed_genes = 2;
    const bool wide_on_opencl = GetParam() == "opencl" && hidden / heads > 128;
    GeneformerWorkload w(o, std::move(backend));
    EXPECT_EQ(w.config().tokens, 64);
    w.prepare(kEager);
    w.run(kEager);
    const std::vector<float> reference = w.output(kEager);
    bool fell_back = false;
    for (size_t s = 1; s < kStageCount; ++s) {
      if (!w.skip_reason(s).empty()) continue;
      w.prepare(s);
      w.run(s);
      const auto r = compare(w.output(s), reference, ladder()[s].tolerance);
      EXPECT_TRUE(r.pass) << GetParam() << " hidden " << hidden << " " << ladder()[s].id << ": "
                          << r.cosine << r.reason;
      fell_back |= w.summaries(s).contains("attention_fallback");
      w.release(s);
    }
    EXPECT_EQ(fell_back, wide_on_opencl) << GetParam() << " hidden " << hidden;
  }
}

// A Hugging Face BERT under a wrapper's "backbone." names, with its default activation ("gelu",
// exact): every stage agrees with the
// eager stage, whose output differs from the same weights run with ReLU (the activation is used).
TEST_P(GeneformerCheckpointBackends, GeluBertRunsEveryStage) {
  TempDir dir;
  Config c = user_config();
  c.layers = 2, c.max_positions = 64;
  write_bert(dir.path() / "model.safetensors", c, "backbone.", "F32");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path();
  o.calibration.batches = 1;
  o.perturbed_genes = 2;
  auto eager = [&](const std::string& act) {
    write_text(dir.path() / "config.json",
               R"({"num_attention_heads": 3, "hidden_act": ")" + act + R"("})");
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(GetParam(), "");
    } catch (const std::exception& e) {
      return std::vector<float>{};
    }
    GeneformerWorkload w(o, std::move(backend));
    if (act == "gelu") {
      EXPECT_GE(sb::testing::expect_stages_match_baseline(w, kEager, GetParam() + " gelu"), 2);
      return w.output(kEager);
    }
    w.prepare(kEager);
    w.run(kEager);
    return w.output(kEager);
  };
  const std::vector<float> gelu = eager("gelu"), relu = eager("relu");
  if (gelu.empty()) GTEST_SKIP() << GetParam() << " backend unavailable";
  EXPECT_LT(compare(gelu, relu, tolerance_for("fp32")).cosine, 0.99999)
      << "the activation is unused";
}

INSTANTIATE_TEST_SUITE_P(Backends, GeneformerCheckpointBackends,
                         ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::geneformer
