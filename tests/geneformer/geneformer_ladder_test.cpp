// Every Geneformer stage at tiny, on every backend built here, against eager within the stage's
// docs/ladders.md tolerance; a skipped stage must say why.
#include <gtest/gtest.h>

#include "harness/correctness.h"
#include "models/geneformer/workload.h"
#include "models/registry.h"

namespace sb::geneformer {
namespace {

class GeneformerLadder : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneformerLadder, EveryStageMatchesEager) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(GetParam(), "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
  }
  WorkloadOptions o;
  o.size = "tiny";
  o.calibration.batches = 2;
  GeneformerWorkload w(o, std::move(backend));
  w.prepare(kEager);
  w.run(kEager);
  const std::vector<float> reference = w.output(kEager);
  ASSERT_EQ(reference.size(), static_cast<size_t>(2 * 64));
  int checked = 0;
  for (size_t s = 1; s < kStageCount; ++s) {
    const std::string id = ladder()[s].id;
    const std::string skip = w.skip_reason(s);
    if (!skip.empty()) {
      EXPECT_GT(skip.size(), 10u) << id << ": a skip needs a reason";
      continue;
    }
    w.prepare(s);
    w.run(s);
    w.run(s);  // planned buffers reused: the same answer
    const auto r = compare(w.output(s), reference, ladder()[s].tolerance);
    EXPECT_TRUE(r.pass) << GetParam() << " stage " << id << ": cosine " << r.cosine << " "
                        << r.reason;
    const nlohmann::json sum = w.summaries(s);
    EXPECT_TRUE(sum.contains("graph")) << id;
    EXPECT_GE(sum["perturbation"]["spearman_vs_baseline"].get<double>(), 0.8) << id;
    if (s == kEngineInt8) {
      EXPECT_EQ(sum["calibration"]["batches"], 2);
      EXPECT_EQ(sum["calibration"]["layers_calibrated"], 2 * 4);
    }
    ++checked;
    w.release(s);
  }
  EXPECT_GE(checked, 2);  // onnx-graph and engine-fp32 run everywhere
}

INSTANTIATE_TEST_SUITE_P(Backends, GeneformerLadder, ::testing::ValuesIn(backend_names()));

TEST(GeneformerLadderSpec, StagesAndSwitches) {
  EXPECT_EQ(ladder().size(), kStageCount);
  EXPECT_EQ(stage_index("engine-fp16"), kEngineFp16);
  EXPECT_EQ(stage_index("1"), kOnnxGraph);
  EXPECT_THROW(stage_index("tensorrt"), std::invalid_argument);
  EXPECT_FALSE(switches_for(kEager, Precision::bf16, false).passes.any());
  const Switches graph = switches_for(kOnnxGraph, Precision::bf16, false);
  EXPECT_TRUE(graph.passes.merge_qkv && graph.passes.eliminate_dead && !graph.fused_attention);
  EXPECT_EQ(switches_for(kEngineFp32, Precision::f16, true).precision, Precision::tf32);
  EXPECT_EQ(switches_for(kEngineFp32, Precision::bf16, false).precision, Precision::f32);
  EXPECT_EQ(switches_for(kEngineFp16, Precision::bf16, false).precision, Precision::bf16);
  EXPECT_EQ(switches_for(kEngineFp16, Precision::f16, true).attention, Precision::f16);
  // Without tensor cores: bf16 products where the reduced precision is bf16 (the CPU), else fp32.
  EXPECT_EQ(switches_for(kEngineFp16, Precision::bf16, false).attention, Precision::bf16);
  EXPECT_EQ(switches_for(kEngineFp16, Precision::f16, false).attention, Precision::f32);
  const Switches int8 = switches_for(kEngineInt8, Precision::f16, true);
  EXPECT_TRUE(int8.calibrated && int8.fused_attention);
  EXPECT_EQ(int8.precision, Precision::int8);
  // f16 activations between the kernels: the fp16 and int8 stages on tensor cores (issue 27).
  EXPECT_TRUE(switches_for(kEngineFp16, Precision::f16, true).half_activations);
  EXPECT_FALSE(switches_for(kEngineFp16, Precision::f16, false).half_activations);
  EXPECT_FALSE(switches_for(kEngineFp16, Precision::bf16, false).half_activations);
  EXPECT_FALSE(switches_for(kEngineFp32, Precision::f16, true).half_activations);
  EXPECT_TRUE(int8.half_activations);
  EXPECT_FALSE(switches_for(kEngineInt8, Precision::f16, false).half_activations);
}

}  // namespace
}  // namespace sb::geneformer
