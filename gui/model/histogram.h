#pragma once
// Equal-width bins of raw samples, for the drill-down's distribution chart.
#include <vector>

namespace sb::viewer {

struct Histogram {
  double low = 0, width = 0;  // bin i covers [low + i width, low + (i+1) width)
  std::vector<int> counts;    // the last bin also holds the maximum
};

// bins <= 0 picks ceil(sqrt(n)), at most 30. Empty input gives no bins; equal values one bin.
Histogram make_histogram(const std::vector<double>& values, int bins = 0);

}  // namespace sb::viewer
