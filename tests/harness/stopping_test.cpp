#include "harness/stopping.h"

#include <gtest/gtest.h>

namespace sb {
namespace {

SamplingOptions limits(double noise, size_t min, size_t max, double time) {
  SamplingOptions o;
  o.noise_target = noise;
  o.min_samples = min;
  o.max_samples = max;
  o.max_time_s = time;
  return o;
}

TEST(Stopping, FormatsPercentages) {
  EXPECT_EQ(format_percent(0.006), "0.6%");
  EXPECT_EQ(format_percent(0.01), "1.0%");
  EXPECT_EQ(format_percent(0.234), "23%");
}

TEST(Stopping, NoiseTargetMetStops) {
  StoppingRule rule(limits(0.01, 5, 100, 60));
  std::vector<double> samples = {10.00, 10.01, 9.99, 10.02, 9.98, 10.00, 10.01, 9.99, 10.0, 10.0};
  EXPECT_TRUE(rule.done({samples, 1.0}));
  EXPECT_TRUE(rule.quality_met());
  EXPECT_EQ(rule.stop_reason().rfind("noise ", 0), 0u) << rule.stop_reason();
  EXPECT_NE(rule.stop_reason().find("<= 1.0%"), std::string::npos) << rule.stop_reason();
}

TEST(Stopping, QuietButTooFewSamplesGoesOn) {
  StoppingRule rule(limits(0.01, 5, 100, 60));
  std::vector<double> samples = {10, 10, 10};
  EXPECT_FALSE(rule.done({samples, 1.0}));
  EXPECT_FALSE(rule.quality_met());
  EXPECT_TRUE(rule.stop_reason().empty());
}

TEST(Stopping, MaxSamplesStopsANoisyStage) {
  StoppingRule rule(limits(0.01, 5, 8, 60));
  std::vector<double> samples;
  for (int i = 0; i < 7; ++i) {
    samples.push_back(i % 2 ? 1 : 3);
    EXPECT_FALSE(rule.done({samples, 0.1}));
  }
  samples.push_back(1);
  ASSERT_TRUE(rule.done({samples, 0.1}));
  EXPECT_FALSE(rule.quality_met());
  EXPECT_EQ(rule.stop_reason().rfind("max samples 8 (noise ", 0), 0u) << rule.stop_reason();
  EXPECT_EQ(rule.stop_reason().back(), ')');
}

TEST(Stopping, MaxTimeStopsANoisyStage) {
  StoppingRule rule(limits(0.01, 5, 100, 60));
  std::vector<double> samples = {1, 3, 1, 3, 1, 3};
  EXPECT_FALSE(rule.done({samples, 59.9}));
  ASSERT_TRUE(rule.done({samples, 60.5}));
  EXPECT_EQ(rule.stop_reason().rfind("max time 60 s (noise ", 0), 0u) << rule.stop_reason();
}

TEST(Stopping, QualityWinsOverALimitFiringTogether) {
  StoppingRule rule(limits(0.01, 5, 5, 60));
  std::vector<double> samples(5, 2.0);
  ASSERT_TRUE(rule.done({samples, 100}));
  EXPECT_EQ(rule.stop_reason(), "noise 0.0% <= 1.0%");
}

// A median interval under the target at one check, by the luck of a few samples, is not yet a
// reason to stop when the rule asks for stability; a check that fails starts the count again.
TEST(Stopping, StableChecksWaitForQualityInARow) {
  SamplingOptions o = limits(0.01, 5, 100, 60);
  o.stable_checks = 3;
  StoppingRule rule(o);
  std::vector<double> samples(6, 2.0);
  EXPECT_FALSE(rule.done({samples, 1}));
  EXPECT_TRUE(rule.quality_met());
  EXPECT_TRUE(rule.stop_reason().empty());
  EXPECT_FALSE(rule.done({samples, 1}));
  const std::vector<double> noisy = {1, 3, 1, 3, 1, 3};
  EXPECT_FALSE(rule.done({noisy, 1}));  // the run of quiet checks is broken
  EXPECT_FALSE(rule.done({samples, 1}));
  EXPECT_FALSE(rule.done({samples, 1}));
  ASSERT_TRUE(rule.done({samples, 1}));
  EXPECT_EQ(rule.stop_reason(), "noise 0.0% <= 1.0%, held 3 checks");
}

TEST(Stopping, ALimitEndsAStageStillProvingStable) {
  SamplingOptions o = limits(0.01, 5, 100, 60);
  o.stable_checks = 5;
  StoppingRule rule(o);
  std::vector<double> samples(6, 2.0);
  EXPECT_FALSE(rule.done({samples, 10}));
  ASSERT_TRUE(rule.done({samples, 61}));
  EXPECT_TRUE(rule.quality_met());  // valid: judged on the samples, not on the count
  EXPECT_EQ(rule.stop_reason(), "noise 0.0% <= 1.0%, held 2 of 5 checks at max time 60 s");
  EXPECT_TRUE(rule.unmet_quality({samples, 61}).empty());
}

TEST(Stopping, StableChecksMustBeAtLeastOne) {
  SamplingOptions o;
  o.stable_checks = 0;
  EXPECT_THROW(o.validate(), std::invalid_argument);
}

TEST(Stopping, CriteriaAsPlugIns) {
  std::vector<std::unique_ptr<StoppingCriterion>> quality, limit;
  quality.push_back(std::make_unique<MinSamples>(3));
  limit.push_back(std::make_unique<MaxTime>(0.5));
  StoppingRule rule(std::move(quality), std::move(limit));
  std::vector<double> samples = {1, 5};
  EXPECT_FALSE(rule.done({samples, 0.1}));
  samples.push_back(9);
  ASSERT_TRUE(rule.done({samples, 0.1}));
  EXPECT_EQ(rule.stop_reason(), "samples 3 >= min 3");

  NoiseTarget noise(0.05, 4);
  std::vector<double> quiet = {2, 2, 2};
  const CriterionVerdict v = noise.assess({quiet, 0});
  EXPECT_FALSE(v.met);
  EXPECT_NE(v.reason.find("3 < 4 samples"), std::string::npos) << v.reason;
  EXPECT_EQ(v.unmet, std::vector<std::string>{"samples 3 < min 4"});
  EXPECT_THROW(NoiseTarget(0), std::invalid_argument);
}

TEST(Stopping, CriteriaAreChosenByName) {
  SamplingOptions o = limits(0.01, 3, 100, 60);
  o.quality = {"min-samples"};
  StoppingRule rule(o);
  std::vector<double> noisy = {1, 9, 1};
  ASSERT_TRUE(rule.done({noisy, 0}));
  EXPECT_EQ(rule.stop_reason(), "samples 3 >= min 3");
  o.quality = {"loudness"};
  try {
    StoppingRule bad(o);
    FAIL() << "an unknown criterion was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown stopping criterion 'loudness'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("max-time"), std::string::npos) << e.what();
  }
}

// Quality has one definition: what stops sampling is what makes a stage valid afterwards.
TEST(Stopping, UnmetQualityIsWhatValidityReports) {
  StoppingRule rule(limits(0.01, 5, 100, 60));
  std::vector<double> few_noisy = {1, 3, 1};
  EXPECT_EQ(rule.unmet_quality({few_noisy, 0}),
            (std::vector<std::string>{"samples 3 < min 5", "noise 100% > 1.0%"}));
  std::vector<double> quiet(6, 2.0);
  EXPECT_TRUE(rule.unmet_quality({quiet, 0}).empty());
}

}  // namespace
}  // namespace sb
