#pragma once
// Per-stage summaries of per-sample values, shared by the collectors.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "schema/records.h"

namespace sb {

// Median of the samples (mean of the middle two for an even count); 0 for none.
template <typename T>
double median_of(std::vector<T> samples) {
  if (samples.empty()) return 0;
  const size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = static_cast<double>(samples[mid]);
  if (samples.size() % 2 == 1) return upper;
  const double lower =
      static_cast<double>(*std::max_element(samples.begin(), samples.begin() + mid));
  return (lower + upper) / 2;
}

// One counter of the stage: {value, per_item, tier, scope}, the shape every counter shares.
inline void add_counter(StageRecord& stage, const std::string& name, double value,
                        double items_per_sample, const std::string& tier,
                        const std::string& scope) {
  CounterRecord& c = stage.counters[name];
  c.value = finite_or_unknown(value);
  c.per_item = items_per_sample > 0 ? finite_or_unknown(value / items_per_sample) : std::nullopt;
  c.tier = tier;
  c.scope = scope;
}

}  // namespace sb
