#pragma once
// Summaries of sample sets and the paired-ratio speedup with its confidence interval.
//
// Quantiles use linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and NumPy): for sorted x[0..n-1] and p in [0,1], h = (n-1)p and
// q(p) = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
//
// Confidence intervals of a median come from order statistics (the distribution-free binomial
// interval): with n samples, [x_(k), x_(n+1-k)] (1-based) covers the true median with
// probability 1 - 2 P(Binomial(n, 1/2) <= k-1), whatever the distribution. We take the largest
// k whose coverage is still >= the requested level. We prefer it over a bootstrap because it
// needs no seed (same samples, same interval), holds its coverage for small n where a bootstrap
// of the median is known to be too narrow (the resampled median takes few distinct values),
// and is cheap. Below 6 samples no k reaches 95%: the interval falls back to [min, max], whose
// coverage (1 - 2^(1-n)) is reported and is lower than asked.
#include <cstddef>
#include <string>
#include <vector>

namespace sb {

struct Summary {
  double median = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n-1 in the denominator); 0 when n == 1
  double min = 0;
  double max = 0;
  double p10 = 0;
  double p90 = 0;
  double cv = 0;  // stddev / mean; 0 when the mean is 0
  size_t n = 0;
};

// Throws std::invalid_argument on an empty vector or on a non-finite value.
Summary summarize(const std::vector<double>& values);

// Quantile p in [0, 1] of values sorted ascending (type 7 above).
double quantile_sorted(const std::vector<double>& sorted, double p);

struct Interval {
  double lo = 0;
  double hi = 0;
  double coverage = 0;  // the interval's actual coverage probability
  bool exact = false;   // false: too few samples, [min, max] with coverage < the level asked
  std::string method;   // "binomial order statistics" or "min-max (n < 6)"
};

// Distribution-free interval of the median (see the file comment). Throws on empty input.
Interval median_ci(const std::vector<double>& values, double level = 0.95);

// Half-width of the median's 95% interval divided by the median: the "relative noise of the
// median" that the noise stopping criterion compares with its target. Infinity when the
// median is 0 or there are fewer than 2 values.
double relative_median_noise(const std::vector<double>& values);

struct PairedSpeedup {
  double estimate = 0;  // median over rounds of baseline_time / stage_time
  Interval ci95;
  size_t pairs = 0;
};

// Speedup of a stage over a baseline from times measured in the same rounds (pairs share an
// index). Pairing cancels machine drift that hits both in a round. Uses the first
// min(sizes) pairs; throws std::invalid_argument when there is no pair or a time is <= 0.
PairedSpeedup paired_speedup(const std::vector<double>& baseline_times,
                             const std::vector<double>& stage_times);

}  // namespace sb
