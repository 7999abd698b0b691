// Mann-Whitney U and the time verdict on known data: a textbook exact p-value, the normal
// approximation, ties, the Hodges-Lehmann shift, and the verdicts on seeded distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "reports/mann_whitney.h"
#include "reports/sample_verdict.h"

namespace {

// Normal samples from a seeded generator (Box-Muller on mt19937, whose sequence is specified).
std::vector<double> normal_samples(double mean, double sd, size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<double> out;
  while (out.size() < n) {
    const double u1 = (g() + 0.5) / 4294967296.0, u2 = (g() + 0.5) / 4294967296.0;
    out.push_back(mean + sd * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
  }
  return out;
}

TEST(MannWhitney, ExactPValueOfTheTextbookExample) {
  // R's wilcox.test documentation (Hollander & Wolfe): W = 35, one-sided p = 0.1272.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const sb::MannWhitney r = sb::mann_whitney(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 50 - 35);  // U of y = n_x n_y - W of x
  EXPECT_NEAR(r.p_value, 2 * 0.1272061272, 1e-9);
}

TEST(MannWhitney, CompleteSeparationOfFiveAndFive) {
  const sb::MannWhitney r = sb::mann_whitney({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);  // 2 / C(10, 5)
  EXPECT_DOUBLE_EQ(r.shift, 5);
  // Exact 95% interval: k = 3 (P(U <= 2) = 4/252 <= 0.025 < P(U <= 3)); the 25 differences are
  // 5 + (j - i): 1, 2, 2, 3, 3, 3, ..., so D(3) = 2 and D(23) = 8.
  EXPECT_DOUBLE_EQ(r.shift_lo, 2);
  EXPECT_DOUBLE_EQ(r.shift_hi, 8);
}

TEST(MannWhitney, ThreeAgainstThreeCannotReachFivePercent) {
  const sb::MannWhitney r = sb::mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);  // 2 / C(6, 3)
  EXPECT_TRUE(std::isnan(r.shift_lo)) << "no 95% interval from 3 x 3";
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // Ties force the normal approximation; all values equal gives p = 1.
  const sb::MannWhitney same = sb::mann_whitney({2, 2, 2, 2}, {2, 2, 2});
  EXPECT_FALSE(same.exact);
  EXPECT_DOUBLE_EQ(same.p_value, 1);
  EXPECT_DOUBLE_EQ(same.shift, 0);
  // x = {1,2,2,3}, y = {2,3,4,5}: U of y = 13.5; ties of 3 and 2 give sum(t^3 - t) = 30, so the
  // corrected sd = sqrt(16/12 * (9 - 30/56)) and z = (|13.5 - 8| - 0.5) / sd.
  const sb::MannWhitney r = sb::mann_whitney({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(r.u, 13.5);
  const double z = 5.0 / std::sqrt(16.0 / 12 * (9 - 30.0 / 56));
  EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-12);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximationAndFindTheShift) {
  const auto x = normal_samples(100, 1, 200, 1), y = normal_samples(103, 1, 300, 2);
  const sb::MannWhitney r = sb::mann_whitney(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_LT(r.p_value, 1e-10);
  EXPECT_NEAR(r.shift, 3, 0.3);
  EXPECT_LT(r.shift_lo, r.shift);
  EXPECT_GT(r.shift_hi, r.shift);
  EXPECT_LT(r.shift_lo, 3.0 + 0.4);
  EXPECT_GT(r.shift_hi, 3.0 - 0.4);
}

TEST(MannWhitney, HugeSamplesFindOrderStatisticsWithoutTheDifferenceArray) {
  // 260 x 260 = 67600 pairs: past the sorted-array limit, so the bisection path runs.
  const auto x = normal_samples(50, 2, 260, 3), y = normal_samples(51, 2, 260, 4);
  const sb::MannWhitney r = sb::mann_whitney(x, y);
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(b - a);
  std::sort(d.begin(), d.end());
  EXPECT_NEAR(r.shift, (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2, 1e-9);
  for (double bound : {r.shift_lo, r.shift_hi}) {
    const auto it = std::lower_bound(d.begin(), d.end(), bound - 1e-9);
    ASSERT_NE(it, d.end());
    EXPECT_NEAR(*it, bound, 1e-9) << "an interval bound is one of the differences";
  }
  EXPECT_LT(r.shift_lo, r.shift);
  EXPECT_GT(r.shift_hi, r.shift);
}

TEST(MannWhitney, NonFiniteValuesAndEmptySamples) {
  const sb::MannWhitney r = sb::mann_whitney({NAN, INFINITY, 1, 2}, {});
  EXPECT_EQ(r.n_x, 2u);
  EXPECT_EQ(r.n_y, 0u);
  EXPECT_TRUE(std::isnan(r.p_value));
}

TEST(MannWhitney, NormalQuantile) {
  EXPECT_NEAR(sb::normal_upper_quantile(0.025), 1.959963985, 1e-8);
  EXPECT_NEAR(sb::normal_upper_quantile(0.5), 0, 1e-12);
}

TEST(TimeVerdict, IdenticalSamplesAreSame) {
  const auto x = normal_samples(100, 0.5, 20, 7);
  const sb::SampleVerdict v = sb::time_samples_verdict(x, x, 0.05, 0.02, 5);
  EXPECT_EQ(v.verdict, sb::Verdict::same) << v.note;
  EXPECT_GT(v.test.p_value, 0.9);
  EXPECT_DOUBLE_EQ(v.change, 0);
}

TEST(TimeVerdict, TenPercentShiftWithTwentySamplesIsSlower) {
  const auto base = normal_samples(100, 1, 20, 11), cand = normal_samples(110, 1, 20, 12);
  const sb::SampleVerdict v = sb::time_samples_verdict(base, cand, 0.05, 0.02, 5);
  EXPECT_EQ(v.verdict, sb::Verdict::slower) << v.note;
  EXPECT_LT(v.test.p_value, 1e-6);
  EXPECT_NEAR(v.change, 0.10, 0.02);
  // And the other way round.
  EXPECT_EQ(sb::time_samples_verdict(cand, base, 0.05, 0.02, 5).verdict, sb::Verdict::faster);
}

// Too few samples to test: never SLOWER, at most suspected when the sides do not overlap.
TEST(TimeVerdict, ThreeSamplesAreNotTested) {
  const sb::SampleVerdict v =
      sb::time_samples_verdict({100, 101, 99}, {150, 151, 149}, 0.05, 0.02, 5);
  EXPECT_EQ(v.verdict, sb::Verdict::slower_suspected);
  EXPECT_TRUE(v.insufficient);
  EXPECT_FALSE(v.significant);
  EXPECT_NE(v.note.find("< min 5"), std::string::npos) << v.note;
  EXPECT_EQ(sb::time_samples_verdict({150, 151, 149}, {100, 101, 99}, 0.05, 0.02, 5).verdict,
            sb::Verdict::faster_suspected);
  // Overlapping samples, or a change below the minimum effect: AMBIGUOUS.
  EXPECT_EQ(sb::time_samples_verdict({100, 160, 99}, {150, 151, 149}, 0.05, 0.02, 5).verdict,
            sb::Verdict::ambiguous);
  EXPECT_EQ(
      sb::time_samples_verdict({100, 100.1, 99.9}, {101, 101.1, 100.9}, 0.05, 0.02, 5).verdict,
      sb::Verdict::ambiguous);
}

TEST(TimeVerdict, NoisyAndNotSignificantIsAmbiguous) {
  // 20% noise hides a 3% shift: neither significant nor provably within 2%.
  const auto base = normal_samples(100, 20, 8, 21), cand = normal_samples(103, 20, 8, 22);
  const sb::SampleVerdict v = sb::time_samples_verdict(base, cand, 0.05, 0.02, 5);
  EXPECT_EQ(v.verdict, sb::Verdict::ambiguous) << v.note;
  EXPECT_FALSE(v.significant);
}

TEST(TimeVerdict, SignificantButNegligibleIsSame) {
  // 0.3% shift with 0.1% noise and many samples: real, but inside the 2% minimum effect.
  const auto base = normal_samples(100, 0.1, 60, 31), cand = normal_samples(100.3, 0.1, 60, 32);
  const sb::SampleVerdict v = sb::time_samples_verdict(base, cand, 0.05, 0.02, 5);
  EXPECT_TRUE(v.significant);
  EXPECT_EQ(v.verdict, sb::Verdict::same) << v.note;
}

TEST(TimeVerdict, VerdictNames) {
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::same), "SAME");
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::faster), "FASTER");
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::slower), "SLOWER");
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::ambiguous), "AMBIGUOUS");
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::slower_suspected), "SLOWER?");
  EXPECT_STREQ(sb::verdict_name(sb::Verdict::faster_suspected), "FASTER?");
}

}  // namespace
