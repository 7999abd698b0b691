// Every Enformer stage at tiny, on every backend built here, against stage 0 within the
// stage's docs/ladders.md tolerance; a skipped stage must say why.
#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/correctness.h"
#include "models/enformer/ladder.h"
#include "models/enformer/model.h"
#include "models/enformer/params.h"
#include "models/enformer/workload.h"
#include "models/registry.h"

namespace sb::enformer {
namespace {

class EnformerLadder : public ::testing::TestWithParam<std::string> {};

// Every stage against stage 0 on `backend_name`, in the environment the caller set.
void every_stage_matches_the_baseline(const std::string& backend_name) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(backend_name, "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << backend_name << " backend unavailable: " << e.what();
  }
  WorkloadOptions o;
  o.size = "tiny";
  EnformerWorkload w(o, std::move(backend));
  w.prepare(kOriginal);
  w.run(kOriginal);
  const std::vector<float> reference = w.output(kOriginal);
  ASSERT_EQ(reference.size(), static_cast<size_t>(16 * (2 * 96 + 64 + 32)));
  double mean_abs = 0;
  for (float v : reference) mean_abs += std::abs(v);
  EXPECT_GT(mean_abs / reference.size(), 1e-3) << "baseline output is degenerate";

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
    w.run(s);  // a second call: static buffers and caches must give the same answer
    const auto r = compare(w.output(s), reference, ladder()[s].tolerance);
    EXPECT_TRUE(r.pass) << backend_name << " stage " << id << ": cosine " << r.cosine << ", rel_l2 "
                        << r.rel_l2 << " " << r.reason;
    ++checked;
    w.release(s);
  }
  EXPECT_GE(checked, 4);  // the fp32 fusion stages run on every backend
}

TEST_P(EnformerLadder, EveryStageMatchesTheBaseline) {
  every_stage_matches_the_baseline(GetParam());
}

// The pools that apply the next conv block's BN + GELU are on by default, so
// EveryStageMatchesTheBaseline covers them; with STAGEBENCH_ENFORMER_POOL_TRANSFORM=off (the path
// before them, kept for A/B runs) no stage takes them, and every stage still matches.
TEST_P(EnformerLadder, PoolTransformOffMatchesTheBaseline) {
  WorkloadOptions o;
  o.size = "tiny";
  const auto taking = [&] {
    const EnformerWorkload probe(o, make_backend("cpu", ""));
    int n = 0;
    for (size_t s = 0; s < kStageCount; ++s) n += probe.switches(s).pool_transform ? 1 : 0;
    return n;
  };
  ASSERT_GE(taking(), 1) << "no stage takes the pool transform by default";
  struct KnobOff {
    KnobOff() { setenv("STAGEBENCH_ENFORMER_POOL_TRANSFORM", "off", 1); }
    ~KnobOff() { unsetenv("STAGEBENCH_ENFORMER_POOL_TRANSFORM"); }
  } const off;
  EXPECT_EQ(taking(), 0) << "a stage takes the pool transform with the knob off";
  every_stage_matches_the_baseline(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, EnformerLadder, ::testing::ValuesIn(backend_names()));

TEST(EnformerLadderSpec, StagesAndSwitches) {
  EXPECT_EQ(ladder().size(), kStageCount);
  EXPECT_EQ(stage_index("graph-compile"), kGraphCompile);
  EXPECT_EQ(stage_index("3"), kFusedGelu);
  EXPECT_THROW(stage_index("warp-drive"), std::invalid_argument);
  std::vector<bool> applies(kStageCount, true);
  applies[kTf32] = false;
  const Switches sw = switches_for(kGraphCompile, applies, Precision::bf16);
  EXPECT_EQ(sw.precision, Precision::f32);  // tf32 skipped: nothing of it carries up
  EXPECT_TRUE(sw.fused_attention && sw.fused_gelu && sw.fused_layernorm && sw.graph_compile);
  EXPECT_EQ(switches_for(kBf16, applies, Precision::bf16).precision, Precision::bf16);
  EXPECT_EQ(switches_for(kInt8Weights, applies, Precision::bf16).precision, Precision::int8);
  EXPECT_FALSE(switches_for(kOriginal, applies, Precision::bf16).fused_attention);
  // The 16-tap stem only where OpenCL's tensor cores want K a multiple of 8: fp16 and int8.
  EXPECT_FALSE(switches_for(kBf16, applies, Precision::bf16).stem_taps16);
  EXPECT_FALSE(switches_for(kInt8Weights, applies, Precision::bf16).stem_taps16);
  EXPECT_FALSE(switches_for(kGraphCompile, applies, Precision::f16).stem_taps16);
  EXPECT_TRUE(switches_for(kBf16, applies, Precision::f16).stem_taps16);
  EXPECT_TRUE(switches_for(kInt8Weights, applies, Precision::f16).stem_taps16);
}

// The stem as 16 taps, a zero one first, computes the 15-tap stem's convolution: the whole
// forward agrees on every backend built here, in fp32 (the first item's first positions see
// the left padding, where a misplaced tap would show).
class EnformerStem : public ::testing::TestWithParam<std::string> {};

TEST_P(EnformerStem, SixteenTapsGiveTheFifteenTapOutput) {
  std::unique_ptr<Backend> be;
  try {
    be = make_backend(GetParam(), "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
  }
  const Config c = config_for("tiny");
  const Params params = Params::random(c, 7);
  std::vector<float> x(c.input_bp * 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 13) / 13.f;
  const Tensor input = be->upload(x, {1, c.input_bp, 4});
  std::vector<float> out[2];
  for (const bool taps16 : {false, true}) {
    Switches sw;
    sw.stem_taps16 = taps16;
    Model m(c, params, *be, sw);
    const Outputs o = m.forward(input);
    out[taps16] = be->download(o.embeddings);
  }
  const auto r = compare(out[1], out[0], Tolerance{});
  EXPECT_TRUE(r.pass) << GetParam() << ": cosine " << r.cosine << ", rel_l2 " << r.rel_l2;
  EXPECT_LT(r.rel_l2, 1e-5) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Backends, EnformerStem, ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::enformer
