// Loading Geneformer from Hugging Face BertModel names (with or without "bert."), the errors
// for missing or mis-shaped tensors, and `infer` writing every hidden state.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "models/geneformer/infer.h"
#include "models/geneformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "models/io/weight_source.h"
#include "models/registry.h"
#include "tests/common/temp_dir.h"

namespace sb::geneformer {
namespace {

namespace fs = std::filesystem;

using sb::testing::TempDir;

void write_weights(const fs::path& path, const Config& c, const Params& p,
                   const std::string& prefix, const std::string& drop = "",
                   const std::string& reshape = "") {
  std::vector<std::pair<std::string, TensorData>> t;
  for (const auto& spec : param_specs(c)) {
    if (spec.name == drop) continue;
    TensorData d{"F32", spec.shape, p.at(spec.name).values};
    if (spec.name == reshape) d.shape = {static_cast<int64_t>(d.values.size())};
    t.emplace_back(prefix + spec.name, std::move(d));
  }
  t.emplace_back(prefix + "pooler.dense.bias", TensorData{"F32", {2}, {0.f, 0.f}});  // unused
  write_safetensors(path, t, "F32");
}

std::vector<float> eager_embedding(const fs::path& weights) {
  WorkloadOptions o;
  o.size = "tiny";
  o.seed = 3;
  o.weights = weights;
  GeneformerWorkload w(o, make_backend("cpu", ""));
  w.prepare(kEager);
  w.run(kEager);
  return w.output(kEager);
}

TEST(GeneformerWeights, HuggingFaceNamesWithOrWithoutBertPrefix) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Params p = Params::random(c, 3);
  write_weights(dir.path() / "plain.safetensors", c, p, "");
  write_weights(dir.path() / "prefixed.safetensors", c, p, "bert.");
  const std::vector<float> seeded = eager_embedding({});
  EXPECT_EQ(eager_embedding(dir.path() / "plain.safetensors"), seeded);
  EXPECT_EQ(eager_embedding(dir.path() / "prefixed.safetensors"), seeded);
}

TEST(GeneformerWeights, MissingOrMisShapedTensorsNameThemselves) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Params p = Params::random(c, 3);
  const std::string q = "encoder.layer.1.attention.self.query.weight";
  write_weights(dir.path() / "missing.safetensors", c, p, "bert.", q);
  write_weights(dir.path() / "shape.safetensors", c, p, "", "", q);
  for (const char* f : {"missing.safetensors", "shape.safetensors"}) {
    try {
      eager_embedding(dir.path() / f);
      FAIL() << f << " loaded";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(q), std::string::npos) << e.what();
    }
  }
}

TEST(GeneformerInfer, WritesEveryHiddenStateAndTheCellEmbedding) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Cells cells = synthetic_cells(c, 2, 11);
  std::vector<float> ids(cells.ids.begin(), cells.ids.end());
  write_npy(dir.path() / "ids.npy", TensorData{"F32", {2, c.tokens}, ids}, "<i8");
  InferRequest r;
  r.size = "tiny";
  r.input = dir.path() / "ids.npy";
  r.output = dir.path() / "out.safetensors";
  r.stage = "onnx-graph";  // all layers even though the cell embedding alone needs fewer
  r.export_weights = dir.path() / "weights.safetensors";
  const InferSummary s = run_inference(r, make_backend("cpu", ""));
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.stage, "onnx-graph");
  const SafetensorsFile f = SafetensorsFile::open(r.output);
  for (int l = 0; l <= 2; ++l) {
    const TensorData h = f.read("hidden_states." + std::to_string(l));
    EXPECT_EQ(h.shape, (std::vector<int64_t>{2, c.tokens, c.hidden}));
  }
  EXPECT_FALSE(f.contains("hidden_states.3"));
  // The exported weights are the seeded ones the forward used, under BertModel names.
  SafetensorsWeights exported(r.export_weights);
  const Params loaded = Params::load(c, exported);
  const Params seeded = Params::random(c, r.seed);
  for (const auto& spec : param_specs(c))
    EXPECT_EQ(loaded.at(spec.name).values, seeded.at(spec.name).values) << spec.name;
  const TensorData e = f.read("cell_embedding");
  ASSERT_EQ(e.shape, (std::vector<int64_t>{2, c.hidden}));
  // The cell embedding is the mean of hidden_states.1 over the gene tokens.
  const TensorData h1 = f.read("hidden_states.1");
  double mean0 = 0;
  for (int64_t t = 0; t < cells.length(1); ++t) mean0 += h1.values[(c.tokens + t) * c.hidden];
  EXPECT_NEAR(e.values[c.hidden], mean0 / static_cast<double>(cells.length(1)), 1e-5);

  r.input = dir.path() / "bad.npy";
  ids[3] = 5000;
  write_npy(r.input, TensorData{"F32", {2, c.tokens}, ids}, "<i8");
  EXPECT_THROW(run_inference(r, make_backend("cpu", "")), std::invalid_argument);
}

}  // namespace
}  // namespace sb::geneformer
