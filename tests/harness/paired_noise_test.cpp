// The paired-noise criterion and its references (harness/paired_reference.h): a ladder whose
// every stage drifts together, as on the 16-core host (cpu29), is invalid by the noise of its
// medians and valid by its stages' ratios to their references; independent noise stays invalid.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "harness/paired_reference.h"
#include "harness/stopping.h"

namespace sb {
namespace {

// rounds of a stage of time base: a drift of +-10% common to a round (the machine), times the
// stage's own jitter of +-own (uniform).
std::vector<double> drifting(double base, size_t rounds, double own, unsigned seed) {
  std::mt19937 drift_rng(1), own_rng(seed);  // one drift for every stage, as one machine
  std::uniform_real_distribution<double> drift(0.9, 1.1), jitter(1 - own, 1 + own);
  std::vector<double> t;
  for (size_t r = 0; r < rounds; ++r) t.push_back(base * drift(drift_rng) * jitter(own_rng));
  return t;
}

SamplingOptions paired_options() {
  SamplingOptions o;
  o.quality = {"paired-noise"};
  o.max_samples = 1000;
  return o;
}

TEST(PairedNoise, CommonDriftCancelsWhereTheMediansNoiseDoesNot) {
  const auto base = drifting(20e-3, 60, 0.002, 2), stage = drifting(10e-3, 60, 0.002, 3);
  // The medians: invalid by the plain criterion (a 10% drift over 60 rounds).
  EXPECT_FALSE(NoiseTarget(0.01, 5).assess({stage, 0}).met);
  // Against the baseline's same rounds: the ratio's noise is the stages' own, 0.2%.
  PairedNoiseTarget paired(0.01, 5);
  const CriterionVerdict v = paired.assess({stage, 0, &base});
  EXPECT_TRUE(v.met) << v.reason;
  EXPECT_EQ(v.reason.rfind("paired noise ", 0), 0u) << v.reason;
  // The rule stops on it, and says which criterion it was.
  StoppingRule rule(paired_options());
  EXPECT_TRUE(rule.done({stage, 1.0, &base}));
  EXPECT_EQ(rule.stop_reason().rfind("paired noise ", 0), 0u) << rule.stop_reason();
}

TEST(PairedNoise, IndependentNoiseStaysInvalid) {
  // Each stage's own jitter of +-10%, not shared: the ratio is as noisy as the times.
  std::vector<double> own_base, own_stage;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> j(0.9, 1.1);
  for (int r = 0; r < 60; ++r)
    own_base.push_back(20e-3 * j(rng)), own_stage.push_back(10e-3 * j(rng));
  const CriterionVerdict v = PairedNoiseTarget(0.01, 5).assess({own_stage, 0, &own_base});
  EXPECT_FALSE(v.met) << v.reason;
  ASSERT_EQ(v.unmet.size(), 1u);
  EXPECT_EQ(v.unmet[0].rfind("paired noise ", 0), 0u) << v.unmet[0];
}

TEST(PairedNoise, NeedsAReferenceAndEnoughPairedRounds) {
  const std::vector<double> stage{1, 1, 1, 1, 1, 1};
  const CriterionVerdict none = PairedNoiseTarget(0.01, 5).assess({stage, 0});
  EXPECT_FALSE(none.met);
  ASSERT_EQ(none.unmet.size(), 1u);
  EXPECT_NE(none.unmet[0].find("no other stage"), std::string::npos);
  // Only the rounds both have count: 3 of the reference's against 6 of the stage's.
  const std::vector<double> short_ref{2, 2, 2};
  const CriterionVerdict few = PairedNoiseTarget(0.01, 5).assess({stage, 0, &short_ref});
  EXPECT_FALSE(few.met);
  EXPECT_EQ(few.unmet.at(0), "paired rounds 3 < min 5");
}

TEST(PairedNoise, ANamedCriterionAndTheSameThreshold) {
  SamplingOptions o = paired_options();
  o.noise_target = 0.005;
  EXPECT_NO_THROW(o.validate());
  const std::vector<double> stage{1.00, 1.01, 0.99, 1.00, 1.01, 0.99, 1.00, 1.00};
  const std::vector<double> ref(stage.size(), 1.0);
  // The ratios are the stage itself here: 1% spread, over the 0.5% asked.
  const auto c = make_criterion("paired-noise", o);
  EXPECT_EQ(c->name(), "paired-noise");
  EXPECT_FALSE(c->assess({stage, 0, &ref}).met);
}

TEST(PairedReference, ABaselineIsPairedWithItsOwnRounds) {
  const std::vector<double> s0{4, 5, 6}, s1{1, 2, 3};
  const std::vector<const std::vector<double>*> all{&s0, &s1};
  EXPECT_EQ(paired_reference(all, 1, 0), s0);
}

TEST(PairedReference, StageZeroAgainstTheOtherStagesDrift) {
  // Stage 1 (median 10) and stage 2 (median 2) both run 1.2x slow in round 1, 0.8x in round 2:
  // the factors are those; stage 0's own baseline is itself.
  const std::vector<double> s0{5, 6, 4}, s1{10, 12, 8}, s2{2, 2.4, 1.6};
  const std::vector<const std::vector<double>*> all{&s0, &s1, &s2};
  const std::vector<double> f = paired_reference(all, 0, 0);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_DOUBLE_EQ(f[1], 1.2);
  EXPECT_DOUBLE_EQ(f[2], 0.8);
  // So stage 0's ratios are 5, 5, 5: no noise left.
  EXPECT_TRUE(PairedNoiseTarget(0.01, 3).assess({s0, 0, &f}).met);
  // Alone, a stage has nothing to pair with.
  const std::vector<const std::vector<double>*> alone{&s0};
  EXPECT_TRUE(paired_reference(alone, 0, 0).empty());
  EXPECT_TRUE(paired_reference(alone, 0, std::nullopt).empty());
}

}  // namespace
}  // namespace sb
