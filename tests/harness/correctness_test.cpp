#include "harness/correctness.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace sb {
namespace {

std::vector<float> reference() {
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01f * static_cast<float>(i)) + 0.5f;
  return v;
}

TEST(Correctness, TolerancesFollowLadders) {
  EXPECT_DOUBLE_EQ(tolerance_for("fp32").min_cosine, 0.99999);
  EXPECT_DOUBLE_EQ(tolerance_for("tf32").min_cosine, 0.9999);
  EXPECT_DOUBLE_EQ(tolerance_for("bf16").min_cosine, 0.999);
  EXPECT_DOUBLE_EQ(tolerance_for("fp16").min_cosine, 0.999);
  EXPECT_DOUBLE_EQ(tolerance_for("int8").min_cosine, 0.99);
  EXPECT_EQ(tolerance_for("bf16").basis, "bf16");
  EXPECT_THROW(tolerance_for("fp8"), std::invalid_argument);
}

TEST(Correctness, IdenticalPasses) {
  const auto ref = reference();
  const CorrectnessResult r = compare(ref, ref, tolerance_for("fp32"));
  EXPECT_TRUE(r.pass) << r.reason;
  EXPECT_NEAR(r.cosine, 1, 1e-12);
  EXPECT_DOUBLE_EQ(r.max_abs, 0);
  EXPECT_DOUBLE_EQ(r.rel_l2, 0);
  EXPECT_EQ(r.basis, "fp32");
  EXPECT_TRUE(r.reason.empty());
}

TEST(Correctness, AStageIsJudgedAtThePrecisionThatRan) {
  // graph-compile is declared fp32; on a device with TF32 its GEMMs ran tf32.
  const Tolerance fp32 = tolerance_for("fp32");
  EXPECT_EQ(tolerance_that_ran(fp32, "tf32").basis, "tf32");
  EXPECT_DOUBLE_EQ(tolerance_that_ran(fp32, "tf32").min_cosine, 0.9999);
  EXPECT_EQ(tolerance_that_ran(fp32, "fp32").basis, "fp32");
  EXPECT_EQ(tolerance_that_ran(fp32, "").basis, "fp32");
  // Never tighter than declared: an int8 stage whose GEMMs report fp32 stays int8.
  EXPECT_EQ(tolerance_that_ran(tolerance_for("int8"), "fp32").basis, "int8");
  // A training stage keeps its loss bound.
  const Tolerance train(0.99999, "fp32", 2e-3);
  EXPECT_DOUBLE_EQ(tolerance_that_ran(train, "bf16").max_loss_rel, 2e-3);
  EXPECT_THROW(tolerance_that_ran(fp32, "fp8"), std::invalid_argument);
}

TEST(Correctness, AConstantFactorFailsOnTheRelativeL2Error) {
  // Cosine is blind to magnitude: 1.01 x the reference has cosine 1.
  const auto ref = reference();
  std::vector<float> scaled = ref;
  for (float& v : scaled) v *= 1.01f;
  const CorrectnessResult fp32 = compare(scaled, ref, tolerance_for("fp32"));
  EXPECT_NEAR(fp32.cosine, 1, 1e-9);
  EXPECT_NEAR(fp32.rel_l2, 0.01, 1e-4);
  EXPECT_NEAR(fp32.rel_l2_tolerance, std::sqrt(2 * 1e-5), 1e-12);
  EXPECT_FALSE(fp32.pass);
  EXPECT_NE(fp32.reason.find("relative L2 error 0.01 > 0.00447 (fp32)"), std::string::npos)
      << fp32.reason;
  // bf16's budget (sqrt(2 * 0.001) = 0.0447) holds a 1% scale.
  EXPECT_TRUE(compare(scaled, ref, tolerance_for("bf16")).pass);
  // int8's budget is sqrt(2 * 0.01) = 0.141: 20% off fails it.
  for (float& v : scaled) v *= 1.2f / 1.01f;
  EXPECT_FALSE(compare(scaled, ref, tolerance_for("int8")).pass);
}

TEST(Correctness, NoiseFailsFp32ButPassesInt8) {
  const auto ref = reference();
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0, 0.02f);
  auto noisy = ref;
  for (auto& v : noisy) v += noise(rng);

  const CorrectnessResult fp32 = compare(noisy, ref, tolerance_for("fp32"));
  EXPECT_FALSE(fp32.pass);
  EXPECT_NE(fp32.reason.find("cosine"), std::string::npos) << fp32.reason;
  EXPECT_LT(fp32.cosine, 0.99999);
  EXPECT_GT(fp32.max_abs, 0.02);
  EXPECT_GT(fp32.rel_l2, 0.01);

  const CorrectnessResult int8 = compare(noisy, ref, tolerance_for("int8"));
  EXPECT_TRUE(int8.pass) << int8.reason;
  EXPECT_DOUBLE_EQ(int8.tolerance, 0.99);
}

TEST(Correctness, NonFiniteFails) {
  const auto ref = reference();
  auto bad = ref;
  bad[17] = std::numeric_limits<float>::quiet_NaN();
  const CorrectnessResult r = compare(bad, ref, tolerance_for("int8"));
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.reason.find("NaN at index 17"), std::string::npos) << r.reason;
  EXPECT_TRUE(std::isnan(r.cosine));

  bad[17] = std::numeric_limits<float>::infinity();
  EXPECT_NE(compare(ref, bad, tolerance_for("int8")).reason.find("baseline output has Inf"),
            std::string::npos);
}

TEST(Correctness, SizeMismatchAndZerosFail) {
  const auto ref = reference();
  const CorrectnessResult r = compare({1, 2}, ref, tolerance_for("fp32"));
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.reason.find("size 2 != baseline size 1000"), std::string::npos) << r.reason;

  const std::vector<float> zeros(1000, 0.f);
  EXPECT_FALSE(compare(zeros, ref, tolerance_for("fp32")).pass);
  EXPECT_TRUE(compare(zeros, zeros, tolerance_for("fp32")).pass);
  EXPECT_FALSE(compare({}, {}, tolerance_for("fp32")).pass);
}

}  // namespace
}  // namespace sb
