// Loading Enformer from a .safetensors file with the reference names, and `infer`.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "harness/correctness.h"
#include "models/enformer/infer.h"
#include "models/enformer/params.h"
#include "models/enformer/workload.h"
#include "models/io/npy.h"
#include "models/io/safetensors.h"
#include "models/io/weight_source.h"
#include "models/registry.h"
#include "tests/common/temp_dir.h"

namespace sb::enformer {
namespace {

namespace fs = std::filesystem;

using sb::testing::TempDir;

std::vector<std::pair<std::string, TensorData>> as_file(const Config& c, const Params& p,
                                                        const std::string& drop = "",
                                                        const std::string& reshape = "") {
  std::vector<std::pair<std::string, TensorData>> t;
  for (const auto& spec : param_specs(c)) {
    if (spec.name == drop) continue;
    TensorData d{"F32", spec.shape, p.at(spec.name).values};
    if (spec.name == reshape) d.shape = {static_cast<int64_t>(d.values.size())};
    t.emplace_back(spec.name, std::move(d));
  }
  return t;
}

TEST(EnformerWeights, LoadedFileGivesTheSameParameters) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Params p = Params::random(c, 5);
  write_safetensors(dir.path() / "w.safetensors", as_file(c, p), "F32");
  SafetensorsWeights src(dir.path() / "w.safetensors");
  const Params q = Params::load(c, src);
  EXPECT_EQ(q.at("transformer.1.0.fn.1.to_q.weight").values,
            p.at("transformer.1.0.fn.1.to_q.weight").values);
  EXPECT_EQ(q.count(), p.count());
}

TEST(EnformerWeights, MissingOrMisShapedTensorsNameThemselves) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Params p = Params::random(c, 5);
  write_safetensors(dir.path() / "missing.safetensors", as_file(c, p, "conv_tower.3.0.2.weight"),
                    "F32");
  write_safetensors(dir.path() / "bad.safetensors",
                    as_file(c, p, "", "transformer.0.0.fn.1.rel_pos_bias"), "F32");
  SafetensorsWeights missing(dir.path() / "missing.safetensors");
  try {
    Params::load(c, missing);
    FAIL() << "loading a file without a tensor must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("conv_tower.3.0.2.weight"), std::string::npos) << e.what();
  }
  SafetensorsWeights bad(dir.path() / "bad.safetensors");
  try {
    Params::load(c, bad);
    FAIL() << "loading a mis-shaped tensor must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("rel_pos_bias"), std::string::npos) << e.what();
  }
}

TEST(EnformerInfer, WritesEveryHeadAndMatchesTheWorkload) {
  TempDir dir;
  const Config c = config_for("tiny");
  const Params p = Params::random(c, 9);
  write_safetensors(dir.path() / "w.safetensors", as_file(c, p), "F16");  // fp16 weights too
  // Base indices [1, L] as a user would save them from NumPy.
  std::vector<float> tokens(c.input_bp);
  std::mt19937 rng(3);
  for (float& t : tokens) t = static_cast<float>(rng() % 4);
  write_npy(dir.path() / "x.npy", {"I64", {1, c.input_bp}, tokens}, "<i8");

  InferRequest r;
  r.weights = dir.path() / "w.safetensors";
  r.input = dir.path() / "x.npy";
  r.output = dir.path() / "y.safetensors";
  const InferSummary s = run_inference(r, make_backend("cpu", ""));
  EXPECT_EQ(s.size, "tiny");
  const SafetensorsFile out = SafetensorsFile::open(r.output);
  const TensorData human = out.read("human");
  EXPECT_EQ(human.shape, (std::vector<int64_t>{1, c.target, c.human_out}));
  EXPECT_EQ(out.read("embeddings").shape, (std::vector<int64_t>{1, c.target, 2 * c.dim}));
  EXPECT_EQ(out.read("mouse").shape, (std::vector<int64_t>{1, c.target, c.mouse_out}));
  for (float v : human.values) ASSERT_GT(v, 0.f) << "softplus heads are positive";

  r.stage = "graph-compile";  // the fused path computes the same function on the same data
  r.output = dir.path() / "z.safetensors";
  run_inference(r, make_backend("cpu", ""));
  const auto fused = SafetensorsFile::open(r.output).read("human");
  EXPECT_TRUE(compare(fused.values, human.values, tolerance_for("fp32")).pass);

  r.input = dir.path() / "nope.txt";
  EXPECT_THROW(run_inference(r, make_backend("cpu", "")), std::exception);
}

}  // namespace
}  // namespace sb::enformer
