#include "gui/model/histogram.h"

#include <algorithm>
#include <cmath>

namespace sb::viewer {

Histogram make_histogram(const std::vector<double>& values, int bins) {
  Histogram h;
  if (values.empty()) return h;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (bins <= 0)
    bins = std::min(30, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(values.size())))));
  h.low = *lo;
  if (*hi == *lo) bins = 1;
  h.width = *hi > *lo ? (*hi - *lo) / bins : 1.0;
  h.counts.assign(static_cast<size_t>(bins), 0);
  for (double v : values) {
    const int i = std::min(bins - 1, static_cast<int>((v - h.low) / h.width));
    ++h.counts[static_cast<size_t>(std::max(0, i))];
  }
  return h;
}

}  // namespace sb::viewer
