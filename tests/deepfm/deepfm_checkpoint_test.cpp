// A user's own DeepFM (embed 24, feed-forward 40, three deep layers of 48, 20 and 36, its own
// vocabularies): the configuration read from the weights' shapes and config.json, every training
// stage on every backend against its baseline, the same weights giving the same trace as the
// seeded run, and each refusal naming the tensor or key and both values.
#include <gtest/gtest.h>

#include <filesystem>

#include "models/deepfm/checkpoint.h"
#include "models/deepfm/data/synthetic.h"
#include "models/deepfm/data/tsv.h"
#include "models/deepfm/workload.h"
#include "models/registry.h"
#include "tests/common/checkpoint_files.h"
#include "tests/common/stages_match.h"
#include "tests/common/temp_dir.h"

namespace sb::deepfm {
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
  c.embed = 24, c.ff = 40, c.deep_widths = {48, 20, 36}, c.layers = 3, c.hidden = 36;
  return c;
}

constexpr Cardinality kUserRows{60, 40, 25, 30};

void write_user(const fs::path& path, const Spoil& spoil = {}) {
  write_checkpoint(path, Params::random(user_config(), kUserRows, 7), "", spoil);
}

std::string refusal(const fs::path& weights) {
  try {
    config_from_checkpoint(config_for("tiny"), weights);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(DeepFmCheckpoint, ConfigurationFromShapesAndConfigJson) {
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  const Checkpoint ck = config_from_checkpoint(config_for("tiny"), dir.path());  // a folder
  EXPECT_EQ(ck.config.embed, 24);
  EXPECT_EQ(ck.config.ff_width(), 40);
  EXPECT_EQ(ck.config.layers, 3);
  EXPECT_EQ(ck.config.deep_widths, (std::vector<int64_t>{48, 20, 36}));
  EXPECT_EQ(ck.config.deep_out(), 36);
  EXPECT_EQ(ck.config.heads, 8);  // the reference's rule: the largest of 8/4/2/1 dividing 24
  EXPECT_EQ(ck.rows, kUserRows);
  EXPECT_EQ(ck.config.batch, 32);  // the preset's
  write_text(dir.path() / "config.json",
             R"({"heads": 3, "dropout": 0.05, "layer_norm_eps": 1e-6, "embed": 24, "ff": 40,
                 "deep": [48, 20, 36], "vocab": [60, 40, 25, 30]})");
  const Checkpoint with = config_from_checkpoint(config_for("tiny"), dir.path());
  EXPECT_EQ(with.config.heads, 3);
  EXPECT_FLOAT_EQ(with.config.dropout, 0.05f);
  EXPECT_FLOAT_EQ(with.config.eps, 1e-6f);
  EXPECT_NE(with.config.source.find("config.json"), std::string::npos) << with.config.source;
}

TEST(DeepFmCheckpoint, ContradictionsAndMissingTensorsAreRefusedByName) {
  TempDir dir;
  const fs::path w = dir.path() / "model.safetensors";
  write_user(w);
  auto json_refusal = [&](const std::string& json) {
    write_text(dir.path() / "config.json", json);
    const std::string r = refusal(w);
    fs::remove(dir.path() / "config.json");
    return r;
  };
  std::string r = json_refusal(R"({"embed": 32})");
  EXPECT_NE(r.find("embed is 32 but the weights (drug_emb.weight's columns) say 24"),
            std::string::npos)
      << r;
  r = json_refusal(R"({"deep": [48, 36]})");
  EXPECT_NE(r.find("deep is [48,36] but the weights"), std::string::npos) << r;
  EXPECT_NE(r.find("[48,20,36]"), std::string::npos) << r;
  r = json_refusal(R"({"vocab": [60, 40, 25, 31]})");
  EXPECT_NE(r.find("[60,40,25,30]"), std::string::npos) << r;
  r = json_refusal(R"({"heads": 5})");
  EXPECT_NE(r.find("heads is 5, which does not divide embed 24"), std::string::npos) << r;
  r = json_refusal(R"({"dropout": 1.5})");
  EXPECT_NE(r.find("dropout 1.5"), std::string::npos) << r;
  r = json_refusal(R"({"hidden": 36})");
  EXPECT_NE(r.find("unknown key 'hidden'"), std::string::npos) << r;
  r = json_refusal(R"([1, 2])");
  EXPECT_NE(r.find("not a JSON object"), std::string::npos) << r;

  write_user(w, dropping("deep.1.weight"));
  r = refusal(w);
  EXPECT_NE(r.find("'deep.1.weight' is missing, but the file has blocks up to deep.2"),
            std::string::npos)
      << r;
  write_user(w, dropping("encoder.linear1.weight"));
  EXPECT_NE(refusal(w).find("missing tensor 'encoder.linear1.weight'"), std::string::npos);
  write_user(w, dropping("outcome_head.weight"));
  EXPECT_NE(refusal(w).find("missing tensor 'outcome_head.weight'"), std::string::npos);
  write_user(w, reshaping("gene_emb.weight", {25 * 24}));  // wrong rank
  r = refusal(w);
  EXPECT_NE(r.find("tensor 'gene_emb.weight' has shape [600], expected 2 dimensions"),
            std::string::npos)
      << r;
  write_user(w, reshaping("gene_emb.weight", {25, 16}));  // another embedding width
  r = refusal(w);
  EXPECT_NE(r.find("'gene_emb.weight' has shape [25,16]: dimension 1 is 16, but "
                   "drug_emb.weight's columns (embed) gives 24"),
            std::string::npos)
      << r;
  write_user(w, reshaping("deep.2.weight", {36, 21}));  // does not chain onto deep.1's 20 rows
  r = refusal(w);
  EXPECT_NE(r.find("dimension 1 is 21, but deep.1.weight's rows gives 20"), std::string::npos) << r;
  write_user(w, reshaping("type_head.weight", {11, 42}));  // the data has 12 effect types
  r = refusal(w);
  EXPECT_NE(r.find("'type_head.weight' has shape [11,42]: dimension 0 is 11"), std::string::npos)
      << r;
  // A tensor the shapes do not decide is checked when the parameters are read.
  write_user(w, reshaping("encoder.self_attn.in_proj_weight", {72, 23}));
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = w;
  try {
    DeepFmWorkload bad(o, make_backend("cpu", ""));
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "'encoder.self_attn.in_proj_weight' has shape [72,23], expected [72,24]"),
              std::string::npos)
        << e.what();
  }
}

// A table with more values in a field than the checkpoint has rows would index past its table.
TEST(DeepFmCheckpoint, ATableWiderThanTheCheckpointIsRefused) {
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  write_tsv(generate_table(table_spec("tiny", 1)), dir.path() / "table.tsv");  // 100 drugs
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path();
  o.data = dir.path() / "table.tsv";
  try {
    DeepFmWorkload w(o, make_backend("cpu", ""));
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the checkpoint's drug_emb.weight has 60 rows"),
              std::string::npos)
        << e.what();
  }
}

// The seeded tiny model written out and read back trains exactly as the seeded run: the names,
// the order and the concatenated table's offsets are the reader's and the writer's alike.
TEST(DeepFmCheckpoint, TheSeededWeightsReadBackTrainTheSameTrace) {
  TempDir dir;
  write_tsv(generate_table(table_spec("tiny", 1)), dir.path() / "table.tsv");
  WorkloadOptions o;
  o.size = "tiny";
  o.data = dir.path() / "table.tsv";
  DeepFmWorkload seeded(o, make_backend("cpu", ""));
  write_checkpoint(dir.path() / "model.safetensors", seeded.parameters());
  o.weights = dir.path();
  DeepFmWorkload loaded(o, make_backend("cpu", ""));
  EXPECT_EQ(loaded.parameters().count(), seeded.parameters().count());
  seeded.prepare(kBaseline);
  loaded.prepare(kBaseline);
  const TrainTrace a = *seeded.train_trace(kBaseline), b = *loaded.train_trace(kBaseline);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.params, b.params);
}

class DeepFmUserCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(DeepFmUserCheckpoint, EveryTrainingStageMatchesItsBaseline) {
  std::string why;
  auto backend = backend_or_null(GetParam(), &why);
  if (!backend) GTEST_SKIP() << GetParam() << " backend unavailable: " << why;
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path() / "model.safetensors";
  DeepFmWorkload w(o, std::move(backend));
  EXPECT_EQ(w.config().deep_widths, (std::vector<int64_t>{48, 20, 36}));
  EXPECT_EQ(w.parameters().count(), Params::random(user_config(), kUserRows, 7).count());
  const nlohmann::json p = w.params();
  EXPECT_EQ(p["ff"], 40);
  EXPECT_EQ(p["deep_widths"], nlohmann::json({48, 20, 36}));
  EXPECT_GT(w.counts(kBaseline).flops, 0);
  EXPECT_GE(
      sb::testing::expect_training_stages_match_baseline(w, kBaseline, kPreprocess, GetParam()),
      2);  // vectorized-fm and preallocated-loss run everywhere
}

INSTANTIATE_TEST_SUITE_P(Backends, DeepFmUserCheckpoint, ::testing::ValuesIn(backend_names()));

// The two backends' baselines on the user's widths: the same curve.
TEST(DeepFmUserCheckpointBackends, TrainTheSameLossCurve) {
  std::string why;
  auto opencl = backend_or_null("opencl", &why);
  if (!opencl) GTEST_SKIP() << "opencl backend unavailable: " << why;
  TempDir dir;
  write_user(dir.path() / "model.safetensors");
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = dir.path();
  DeepFmWorkload cpu(o, make_backend("cpu", "")), cl(o, std::move(opencl));
  cpu.prepare(kBaseline);
  cl.prepare(kBaseline);
  const auto r = compare_training(*cl.train_trace(kBaseline), *cpu.train_trace(kBaseline),
                                  ladder()[kBaseline].tolerance);
  EXPECT_TRUE(r.pass) << r.reason;
}

}  // namespace
}  // namespace sb::deepfm
