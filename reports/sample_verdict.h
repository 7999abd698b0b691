#pragma once
// The verdict on time samples of one stage in two runs: a Mann-Whitney test for "is there a
// change" and a minimum effect for "does it matter" (docs/compare.md).
#include <string>
#include <vector>

#include "reports/mann_whitney.h"
#include "reports/verdict.h"

namespace sb {

struct SampleVerdict {
  Verdict verdict = Verdict::ambiguous;
  MannWhitney test;
  double median_base = NAN, median_candidate = NAN;
  double change = NAN;        // median_candidate / median_base - 1
  bool significant = false;   // p < alpha with enough samples on both sides
  bool insufficient = false;  // fewer than min_samples on a side: no test was made
  std::string note;           // why AMBIGUOUS, or the interval for SAME
};

// - fewer than min_samples on a side (`insufficient`): SLOWER? or FASTER? when every candidate
//   sample lies beyond every base sample and the medians differ by at least min_effect, else
//   AMBIGUOUS;
// - the whole (1 - alpha) interval of the shift within +-min_effect of the base median: SAME;
// - significant (p < alpha) and the medians differ by at least min_effect: SLOWER when the
//   candidate's time is higher, FASTER when lower;
// - otherwise AMBIGUOUS (not significant but the interval reaches past the minimum effect, or
//   significant yet smaller than it with an interval reaching past it).
SampleVerdict time_samples_verdict(const std::vector<double>& base,
                                   const std::vector<double>& candidate, double alpha,
                                   double min_effect, size_t min_samples);

// Median of the finite values (type 7 quantile at 0.5); NaN when there are none.
double median_of(std::vector<double> values);

}  // namespace sb
