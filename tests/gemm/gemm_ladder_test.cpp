// The GEMM benchmark at tiny on every backend built here: every stage the backend can do matches
// the fp32 stage within its docs/method.md tolerance, and fp32 matches a double-precision
// product; a skipped stage says why; the counts are a square GEMM's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "harness/correctness.h"
#include "models/gemm/counts.h"
#include "models/gemm/entry.h"
#include "models/gemm/workload.h"
#include "models/registry.h"

namespace sb::gemm {
namespace {

class GemmLadder : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmLadder, EveryStageMatchesFp32) {
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(GetParam(), "");
  } catch (const std::exception& e) {
    GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
  }
  WorkloadOptions o;
  o.size = "tiny";
  o.seed = 7;
  GemmWorkload w(o, std::move(backend));
  const int64_t d = 256;
  ASSERT_EQ(w.config().m, d);
  ASSERT_EQ(w.config().n, d);
  ASSERT_EQ(w.config().k, d);
  EXPECT_EQ(w.params()["m"], d);
  EXPECT_EQ(w.params()["k"], d);

  ASSERT_TRUE(w.skip_reason(kFp32).empty()) << "fp32 runs everywhere";
  w.prepare(kFp32);
  w.run(kFp32);
  const std::vector<float> reference = w.output(kFp32);
  ASSERT_EQ(reference.size(), static_cast<size_t>(d * d));

  // Stage 0 against the product in double, a few rows of it.
  const std::vector<float> x = random_matrix(d, d, o.seed + 1), wt = random_matrix(d, d, o.seed);
  for (int64_t i : {int64_t{0}, d / 2, d - 1})
    for (int64_t j = 0; j < d; j += 17) {
      double s = 0;
      for (int64_t k = 0; k < d; ++k) s += double(x[i * d + k]) * double(wt[j * d + k]);
      ASSERT_NEAR(reference[i * d + j], s, 1e-4 * (1 + std::abs(s))) << i << "," << j;
    }

  int checked = 0;
  for (size_t s = 0; s < kStageCount; ++s) {
    const StageSpec& spec = ladder()[s];
    const WorkCounts c = w.counts(s);
    EXPECT_DOUBLE_EQ(c.flops, 2.0 * d * d * d) << spec.id;
    EXPECT_DOUBLE_EQ(c.bytes, element_bytes(switches_for(s).precision) * 2 * d * d + 4.0 * d * d)
        << spec.id;
    EXPECT_EQ(c.items, 1);
    EXPECT_EQ(c.item_name, "gemms");
    EXPECT_EQ(c.precision, spec.id);  // the stages are named as the precisions are reported
    if (s == kFp32) continue;
    const std::string skip = w.skip_reason(s);
    if (!skip.empty()) {
      EXPECT_GT(skip.size(), 10u) << spec.id << ": a skip needs a reason";
      continue;
    }
    w.prepare(s);
    w.run(s);
    const auto r = compare(w.output(s), reference, spec.tolerance);
    EXPECT_TRUE(r.pass) << GetParam() << " stage " << spec.id << ": cosine " << r.cosine << " "
                        << r.reason;
    w.release(s);
    EXPECT_TRUE(w.output(s).empty()) << spec.id << ": released";
    ++checked;
  }
  // OpenCL has fp16 and int8 kernels on every device; the CPU's reduced precisions depend on it.
  if (GetParam() == "opencl") {
    EXPECT_GE(checked, 2);
  }
}

// gemm34: the fp16 stage reads x in f16 written once before it (STAGEBENCH_GEMM_F16_INPUT, on
// unless off) where the backend writes f16 activations, and converts it at every call where not:
// the same halves either way, so the two outputs are the same bits; params say which it reads.
TEST_P(GemmLadder, Fp16InputWrittenOnceGivesTheBitsOfThePerCallConversion) {
  std::vector<float> outputs[2];
  std::string said[2];
  for (int off = 0; off < 2; ++off) {
    if (off)
      setenv("STAGEBENCH_GEMM_F16_INPUT", "off", 1);
    else
      unsetenv("STAGEBENCH_GEMM_F16_INPUT");
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(GetParam(), "");
    } catch (const std::exception& e) {
      unsetenv("STAGEBENCH_GEMM_F16_INPUT");
      GTEST_SKIP() << GetParam() << " backend unavailable: " << e.what();
    }
    WorkloadOptions o;
    o.size = "256x192x264";  // K a multiple of 8 (the f16 pipeline's rows), not of 64
    GemmWorkload w(o, std::move(backend));
    said[off] = w.params()["fp16_input"];
    if (!w.skip_reason(kFp16).empty()) {
      unsetenv("STAGEBENCH_GEMM_F16_INPUT");
      GTEST_SKIP() << GetParam() << " has no fp16 stage";
    }
    w.prepare(kFp16);
    w.run(kFp16);
    outputs[off] = w.output(kFp16);
  }
  unsetenv("STAGEBENCH_GEMM_F16_INPUT");
  EXPECT_NE(said[0].find("converted once"), std::string::npos) << said[0];
  EXPECT_NE(said[1].find("STAGEBENCH_GEMM_F16_INPUT=off"), std::string::npos) << said[1];
  ASSERT_EQ(outputs[0].size(), size_t{256 * 192});
  ASSERT_EQ(outputs[0].size(), outputs[1].size());
  for (size_t i = 0; i < outputs[0].size(); ++i)
    ASSERT_EQ(outputs[0][i], outputs[1][i]) << "element " << i;
}

TEST(GemmLadderSpec, Fp16InputKnobRejectsOtherValues) {
  setenv("STAGEBENCH_GEMM_F16_INPUT", "maybe", 1);
  WorkloadOptions o;
  o.size = "tiny";
  GemmWorkload w(o, make_backend("cpu", ""));
  EXPECT_THROW(w.params(), std::invalid_argument);
  unsetenv("STAGEBENCH_GEMM_F16_INPUT");
}

INSTANTIATE_TEST_SUITE_P(Backends, GemmLadder, ::testing::ValuesIn(backend_names()));

TEST(GemmLadderSpec, StagesClaimsAndTolerances) {
  ASSERT_EQ(ladder().size(), kStageCount);
  EXPECT_EQ(stage_index("fp16"), kFp16);
  EXPECT_EQ(stage_index("3"), kInt8);
  EXPECT_THROW(stage_index("bf8"), std::invalid_argument);
  for (const auto& s : ladder()) {
    EXPECT_EQ(s.claim.source, "none") << s.id;
    EXPECT_FALSE(s.claim.speedup) << s.id;
    EXPECT_TRUE(s.baseline.empty()) << s.id << ": checked against stage 0";
    EXPECT_EQ(s.tolerance.basis, s.id);
  }
  EXPECT_EQ(ladder()[kFp32].tolerance.min_cosine, 0.99999);
  EXPECT_EQ(ladder()[kTf32].tolerance.min_cosine, 0.9999);
  EXPECT_EQ(ladder()[kFp16].tolerance.min_cosine, 0.999);
  EXPECT_EQ(ladder()[kInt8].tolerance.min_cosine, 0.99);
  EXPECT_EQ(switches_for(kTf32).precision, Precision::tf32);
  EXPECT_THROW(config_for("huge"), std::invalid_argument);
  EXPECT_EQ(config_for("full").k, 8192);
  EXPECT_EQ(config_for("small").m, 4096);
}

TEST(GemmLadderSpec, TakesAModelsOwnShape) {
  const Config c = config_for("65536x768x256");
  EXPECT_EQ(c.m, 65536);
  EXPECT_EQ(c.n, 768);
  EXPECT_EQ(c.k, 256);
  EXPECT_EQ(c.size, "65536x768x256");
  for (const char* bad : {"0x8x8", "8x8", "8x8x8x8", "8x8x", "x8x8", "8X8X8", "8x-8x8",
                          "8x8x16777217", "99999999999x1x1", "8x8x8 "})
    EXPECT_FALSE(parse_shape(bad)) << bad;
  EXPECT_TRUE(parse_shape("16777216x1x1"));
  const ModelEntry& gemm = find_model("gemm");
  EXPECT_NO_THROW(check_size(gemm, "3x5x7"));
  try {
    check_size(gemm, "3x5");
    ADD_FAILURE() << "3x5 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("or MxNxK"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_size(find_model("geneformer"), "3x5x7"), std::invalid_argument);

  // A shape that is not square runs, and its fp32 product is x . W^T over K.
  WorkloadOptions o;
  o.size = "40x24x56";
  o.seed = 3;
  GemmWorkload w(o, make_backend("cpu", ""));
  w.prepare(kFp32);
  w.run(kFp32);
  const std::vector<float> y = w.output(kFp32);
  ASSERT_EQ(y.size(), size_t{40 * 24});
  const std::vector<float> x = random_matrix(40, 56, o.seed + 1),
                           wt = random_matrix(24, 56, o.seed);
  for (int64_t i : {0, 17, 39})
    for (int64_t j : {0, 11, 23}) {
      double sum = 0;
      for (int64_t k = 0; k < 56; ++k) sum += double(x[i * 56 + k]) * double(wt[j * 56 + k]);
      EXPECT_NEAR(y[i * 24 + j], sum, 1e-4 * (1 + std::abs(sum))) << i << "," << j;
    }
  EXPECT_DOUBLE_EQ(w.counts(kFp16).bytes, 2.0 * (40 * 56 + 24 * 56) + 4.0 * 40 * 24);
}

// The CLI refuses a size with the model's own list (check_size, before anything is measured),
// and a model given one anyway refuses it in the same words: one list per model, one message.
TEST(GemmLadderSpec, EveryModelRefusesAnUnknownSizeAsTheCliDoes) {
  for (const ModelEntry& m : model_registry()) {
    std::string cli, model;
    try {
      check_size(m, "huge");
    } catch (const std::invalid_argument& e) {
      cli = e.what();
    }
    WorkloadRequest r;
    r.size = "huge";
    try {
      m.make(r, make_backend("cpu", ""));
    } catch (const std::invalid_argument& e) {
      model = e.what();
    }
    EXPECT_EQ(cli, m.name + ": unknown size 'huge' (sizes: tiny, small, full" +
                       (m.other_sizes.accepts ? ", or " + m.other_sizes.form : "") + ")");
    EXPECT_EQ(model, cli) << m.name;
  }
}

TEST(GemmLadderSpec, RefusesOptionsThatDoNotApply) {
  WorkloadRequest r;
  r.size = "tiny";
  EXPECT_TRUE(gemm_refused_options(r).empty());
  r.batch = 1;
  EXPECT_TRUE(gemm_refused_options(r).empty());
  r.weights = "w.safetensors";
  EXPECT_NE(gemm_refused_options(r).find("--weights"), std::string::npos);
  r.weights.clear();
  r.input = "x.npy";
  EXPECT_NE(gemm_refused_options(r).find("--input"), std::string::npos);
  r.input.clear();
  r.batch = 4;
  EXPECT_NE(gemm_refused_options(r).find("--batch"), std::string::npos);
  EXPECT_THROW(find_model("gemm").make(r, make_backend("cpu", "")), std::invalid_argument);
}

}  // namespace
}  // namespace sb::gemm
