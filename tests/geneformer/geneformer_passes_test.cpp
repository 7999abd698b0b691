// Each graph pass on its own computes the same function as the eager graph, and does what it
// says (dead layers not run, buffers reused).
#include <gtest/gtest.h>

#include "harness/correctness.h"
#include "models/geneformer/workload.h"
#include "models/registry.h"

namespace sb::geneformer {
namespace {

struct PassCase {
  const char* name;
  GraphPasses passes;
};

std::vector<PassCase> single_passes() {
  std::vector<PassCase> out;
  auto one = [&](const char* n, bool GraphPasses::*field) {
    GraphPasses p;
    p.*field = true;
    out.push_back({n, p});
  };
  one("fold_constants", &GraphPasses::fold_constants);
  one("merge_qkv", &GraphPasses::merge_qkv);
  one("fuse_bias_act", &GraphPasses::fuse_bias_act);
  one("fuse_residual_layernorm", &GraphPasses::fuse_residual_layernorm);
  one("eliminate_dead", &GraphPasses::eliminate_dead);
  one("plan_memory", &GraphPasses::plan_memory);
  out.push_back({"all", GraphPasses::all()});
  return out;
}

std::vector<float> embedding(Model& m, Backend& be, const DeviceCells& cells) {
  const Outputs o = m.forward(cells);
  return be.download(o.cell_embedding);
}

TEST(GeneformerPasses, EachPassAloneKeepsTheFunction) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  Backend& be = w.backend();
  const DeviceCells cells = upload(be, w.cells());
  Model eager(w.config(), w.parameters(), be, Switches{});
  const std::vector<float> want = embedding(eager, be, cells);
  EXPECT_EQ(eager.layers_run(), 2);
  for (const PassCase& c : single_passes()) {
    Switches sw;
    sw.passes = c.passes;
    Model m(w.config(), w.parameters(), be, sw);
    const std::vector<float> got = embedding(m, be, cells);
    const auto r = compare(got, want, Tolerance{0.9999999, "fp32"});
    EXPECT_TRUE(r.pass) << c.name << ": cosine " << r.cosine << " " << r.reason;
    EXPECT_LT(r.max_abs, 1e-5) << c.name;
    EXPECT_EQ(embedding(m, be, cells), got) << c.name << ": a second call differs";
    if (c.passes.eliminate_dead) {
      EXPECT_EQ(m.layers_run(), 1) << c.name;
    }
    if (c.passes.plan_memory) {
      EXPECT_GT(m.planned_bytes(), 0u);
      EXPECT_LT(m.planned_bytes(), m.requested_bytes()) << c.name << ": no buffer was reused";
    } else {
      EXPECT_EQ(m.planned_bytes(), 0u);
    }
  }
}

TEST(GeneformerPasses, GraphReportNamesWhatFired) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  const nlohmann::json s = w.summaries(kOnnxGraph);
  const auto& passes = s["graph"]["passes"];
  ASSERT_EQ(passes.size(), 5u);
  for (const auto& p : passes) {
    EXPECT_TRUE(p["enabled"].get<bool>()) << p.dump();
    EXPECT_GT(p["fired"].get<int64_t>(), 0) << p.dump();
  }
  EXPECT_GT(passes[0]["traffic_saved_bytes"].get<double>(), 0);
  EXPECT_EQ(s["graph"]["dead_layers_removed"]["layers"], 1);
  EXPECT_LT(s["graph"]["memory_plan"]["arena_bytes"].get<uint64_t>(),
            s["graph"]["memory_plan"]["requested_bytes_per_forward"].get<uint64_t>());
  EXPECT_FALSE(w.summaries(kEager).contains("graph"));
}

}  // namespace
}  // namespace sb::geneformer
