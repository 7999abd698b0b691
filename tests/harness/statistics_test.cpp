#include "stats/statistics.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(Statistics, SummaryOfKnownVector) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // h = 4 * 0.1 = 0.4: 1 + 0.4 * (2 - 1)
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(2.5) / 3);
}

TEST(Statistics, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted({10, 20}, 0.25), 12.5);
}

TEST(Statistics, SingleValueHasZeroSpread) {
  const Summary s = summarize({7});
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.p10, 7);
}

TEST(Statistics, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1, NAN}), std::invalid_argument);
  EXPECT_THROW(quantile_sorted({1, 2}, 1.5), std::invalid_argument);
}

TEST(Statistics, MedianIntervalUsesBinomialOrderStatistics) {
  // n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so k = 2: [x(2), x(9)].
  const Interval ci = median_ci({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_TRUE(ci.exact);
  EXPECT_DOUBLE_EQ(ci.lo, 2);
  EXPECT_DOUBLE_EQ(ci.hi, 9);
  EXPECT_NEAR(ci.coverage, 1 - 2 * 11.0 / 1024, 1e-12);
  EXPECT_EQ(ci.method, "binomial order statistics");
}

TEST(Statistics, MedianIntervalSixSamplesIsMinMaxExactly) {
  const Interval ci = median_ci({3, 1, 2, 6, 5, 4});
  EXPECT_TRUE(ci.exact);
  EXPECT_DOUBLE_EQ(ci.lo, 1);
  EXPECT_DOUBLE_EQ(ci.hi, 6);
  EXPECT_NEAR(ci.coverage, 1 - 2.0 / 64, 1e-12);
}

TEST(Statistics, MedianIntervalFallsBackBelowSixSamples) {
  const Interval ci = median_ci({3, 1, 2, 5, 4});
  EXPECT_FALSE(ci.exact);
  EXPECT_DOUBLE_EQ(ci.lo, 1);
  EXPECT_DOUBLE_EQ(ci.hi, 5);
  EXPECT_LT(ci.coverage, 0.95);
  EXPECT_EQ(ci.method, "min-max (n < 6)");
}

TEST(Statistics, RelativeNoiseOfTheMedian) {
  // 1..10: interval [2, 9], median 5.5 -> half-width 3.5 / 5.5.
  EXPECT_NEAR(relative_median_noise({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 3.5 / 5.5, 1e-12);
  EXPECT_TRUE(std::isinf(relative_median_noise({1})));
  EXPECT_DOUBLE_EQ(relative_median_noise(std::vector<double>(20, 4.0)), 0);
}

TEST(Statistics, PairedSpeedupOfExactHalves) {
  const PairedSpeedup s = paired_speedup({2, 4, 6, 8, 10, 12}, {1, 2, 3, 4, 5, 6});
  EXPECT_DOUBLE_EQ(s.estimate, 2);
  EXPECT_DOUBLE_EQ(s.ci95.lo, 2);
  EXPECT_DOUBLE_EQ(s.ci95.hi, 2);
  EXPECT_EQ(s.pairs, 6u);
  EXPECT_THROW(paired_speedup({}, {1}), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1, 0}, {1, 1}), std::invalid_argument);
}

TEST(Statistics, PairedSpeedupUsesCommonRoundsOnly) {
  // The stage left after 3 rounds: only those pair with the baseline.
  const PairedSpeedup s = paired_speedup({3, 3, 3, 100, 100}, {1, 1, 1});
  EXPECT_EQ(s.pairs, 3u);
  EXPECT_DOUBLE_EQ(s.estimate, 3);
}

// Drift that hits both stages of a round cancels in the ratio; lognormal noise on each time
// is symmetric in log space, so the true median ratio is exactly 2.
TEST(Statistics, PairedSpeedupIntervalCoversTheTrueRatio) {
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> noise(0.0, 0.15);
  std::uniform_real_distribution<double> drift(0.7, 1.5);
  const double true_ratio = 2;
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> base, stage;
    for (int r = 0; r < 30; ++r) {
      const double d = drift(rng);
      base.push_back(10 * d * std::exp(noise(rng)));
      stage.push_back(10 / true_ratio * d * std::exp(noise(rng)));
    }
    const PairedSpeedup s = paired_speedup(base, stage);
    ASSERT_TRUE(s.ci95.exact);
    ASSERT_GE(s.ci95.coverage, 0.95);
    if (s.ci95.lo <= true_ratio && true_ratio <= s.ci95.hi) ++covered;
  }
  // Nominal coverage is >= 95% (98.4% for n = 30); allow for the finite number of trials.
  EXPECT_GE(covered, static_cast<int>(0.93 * trials));
  EXPECT_LE(covered, trials);
}

}  // namespace
}  // namespace sb
