#pragma once
// The two-sided Mann-Whitney U (Wilcoxon rank-sum) test between two samples, with the
// Hodges-Lehmann estimate of the shift and its distribution-free confidence interval. Exact null
// distribution for small samples without ties, normal approximation with tie and continuity
// correction otherwise.
#include <cmath>
#include <cstddef>
#include <vector>

namespace sb {

struct MannWhitney {
  size_t n_x = 0, n_y = 0;
  double u = NAN;        // U of y: the number of pairs with y > x, ties counting one half
  double p_value = NAN;  // two-sided; NaN when a sample is empty
  bool exact = false;    // true: from the exact null distribution
  // Shift y - x: the median of all pairwise differences, and the (1 - alpha) interval from their
  // order statistics; lo/hi are NaN when the samples are too small for that confidence.
  double shift = NAN, shift_lo = NAN, shift_hi = NAN;
};

// Non-finite values are ignored. alpha sets the interval's confidence (0.05: 95%).
MannWhitney mann_whitney(std::vector<double> x, std::vector<double> y, double alpha = 0.05);

// Samples up to this size per side (and no ties) use the exact null distribution.
inline constexpr size_t kMannWhitneyExactMax = 30;

// Upper-tail quantile of the standard normal: z with P(Z > z) = q.
double normal_upper_quantile(double q);

}  // namespace sb
