#include "stats/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sb {
namespace {

std::vector<double> sorted_copy(const std::vector<double>& values, const char* what) {
  if (values.empty()) throw std::invalid_argument(std::string(what) + ": no values");
  for (double v : values) {
    if (!std::isfinite(v)) throw std::invalid_argument(std::string(what) + ": non-finite value");
  }
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// P(Binomial(n, 1/2) <= k), summed in log space so that n in the thousands stays exact enough.
double binomial_half_cdf(size_t n, size_t k) {
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  double sum = 0;
  for (size_t i = 0; i <= k && i <= n; ++i) {
    double log_choose = std::lgamma(static_cast<double>(n) + 1) -
                        std::lgamma(static_cast<double>(i) + 1) -
                        std::lgamma(static_cast<double>(n - i) + 1);
    sum += std::exp(log_choose + log_half_n);
  }
  return std::min(sum, 1.0);
}

}  // namespace

double quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty set");
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("quantile p outside [0, 1]");
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

Summary summarize(const std::vector<double>& values) {
  const std::vector<double> sorted = sorted_copy(values, "summarize");
  Summary s;
  s.n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile_sorted(sorted, 0.5);
  s.p10 = quantile_sorted(sorted, 0.1);
  s.p90 = quantile_sorted(sorted, 0.9);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
  return s;
}

Interval median_ci(const std::vector<double>& values, double level) {
  const std::vector<double> sorted = sorted_copy(values, "median_ci");
  if (!(level > 0 && level < 1)) throw std::invalid_argument("median_ci: level outside (0, 1)");
  const size_t n = sorted.size();
  const double alpha_half = (1 - level) / 2;
  // Largest k (1-based) with P(B <= k-1) <= alpha/2; k = 0 means none qualifies.
  size_t k = 0;
  for (size_t cand = 1; cand <= (n + 1) / 2; ++cand) {
    if (binomial_half_cdf(n, cand - 1) <= alpha_half) {
      k = cand;
    } else {
      break;
    }
  }
  Interval ci;
  if (k == 0) {
    ci.lo = sorted.front();
    ci.hi = sorted.back();
    ci.coverage = n > 1 ? 1 - 2 * binomial_half_cdf(n, 0) : 0;
    ci.exact = false;
    ci.method = "min-max (n < 6)";
    return ci;
  }
  ci.lo = sorted[k - 1];
  ci.hi = sorted[n - k];
  ci.coverage = 1 - 2 * binomial_half_cdf(n, k - 1);
  ci.exact = true;
  ci.method = "binomial order statistics";
  return ci;
}

double relative_median_noise(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::infinity();
  const Interval ci = median_ci(values, 0.95);
  const double median = summarize(values).median;
  if (median == 0) return std::numeric_limits<double>::infinity();
  return (ci.hi - ci.lo) / 2 / std::fabs(median);
}

PairedSpeedup paired_speedup(const std::vector<double>& baseline_times,
                             const std::vector<double>& stage_times) {
  const size_t pairs = std::min(baseline_times.size(), stage_times.size());
  if (pairs == 0) throw std::invalid_argument("paired_speedup: no paired rounds");
  std::vector<double> ratios(pairs);
  for (size_t r = 0; r < pairs; ++r) {
    if (!(baseline_times[r] > 0) || !(stage_times[r] > 0)) {
      throw std::invalid_argument("paired_speedup: a time is not positive");
    }
    ratios[r] = baseline_times[r] / stage_times[r];
  }
  PairedSpeedup s;
  s.estimate = summarize(ratios).median;
  s.ci95 = median_ci(ratios, 0.95);
  s.pairs = pairs;
  return s;
}

}  // namespace sb
