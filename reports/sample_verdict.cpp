#include "reports/sample_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sb {
namespace {

std::string percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", fraction * 100);
  return buf;
}

}  // namespace

double median_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double d) { return !std::isfinite(d); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

SampleVerdict time_samples_verdict(const std::vector<double>& base,
                                   const std::vector<double>& candidate, double alpha,
                                   double min_effect, size_t min_samples) {
  SampleVerdict r;
  r.test = mann_whitney(base, candidate, alpha);
  r.median_base = median_of(base);
  r.median_candidate = median_of(candidate);
  if (r.median_base > 0) r.change = r.median_candidate / r.median_base - 1;
  if (r.test.n_x < min_samples || r.test.n_y < min_samples) {
    r.note = "samples " + std::to_string(r.test.n_x) + " vs " + std::to_string(r.test.n_y) +
             " < min " + std::to_string(min_samples);
    r.insufficient = true;
    // A large effect on few samples: the two sides do not overlap at all. Not a test (4 vs 4
    // samples separate by chance with p = 2/70), so only suspected.
    if (!base.empty() && !candidate.empty() && std::fabs(r.change) >= min_effect) {
      const auto [bmin, bmax] = std::minmax_element(base.begin(), base.end());
      const auto [cmin, cmax] = std::minmax_element(candidate.begin(), candidate.end());
      if (*cmin > *bmax) r.verdict = Verdict::slower_suspected;
      if (*cmax < *bmin) r.verdict = Verdict::faster_suspected;
      if (r.verdict != Verdict::ambiguous)
        r.note += ", every candidate sample beyond every base one";
    }
    return r;
  }
  r.significant = r.test.p_value < alpha;
  if (!(r.median_base > 0)) {
    r.note = "base median is not positive";
    return r;
  }
  const double lo = r.test.shift_lo / r.median_base, hi = r.test.shift_hi / r.median_base;
  const bool interval_known = std::isfinite(lo) && std::isfinite(hi);
  if (interval_known && std::fabs(lo) <= min_effect && std::fabs(hi) <= min_effect) {
    r.verdict = Verdict::same;
    r.note = "shift within [" + percent(lo) + ", " + percent(hi) + "]";
    return r;
  }
  const bool large = std::fabs(r.change) >= min_effect;
  const bool agrees = (r.change > 0) == (r.test.shift > 0);  // medians and shift point alike
  if (r.significant && large && agrees) {
    r.verdict = r.change > 0 ? Verdict::slower : Verdict::faster;
    return r;
  }
  r.note = interval_known ? "shift in [" + percent(lo) + ", " + percent(hi) + "]"
                          : "interval of the shift unknown";
  if (r.significant && !large) r.note += ", significant but below the minimum effect";
  if (!r.significant) r.note += ", not significant";
  return r;
}

}  // namespace sb
