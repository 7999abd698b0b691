#include "harness/paired_reference.h"

#include <algorithm>

#include "stats/statistics.h"

namespace sb {

std::vector<double> paired_reference(const std::vector<const std::vector<double>*>& samples,
                                     size_t i, std::optional<size_t> baseline) {
  if (baseline && *baseline != i) return *samples[*baseline];
  const size_t rounds = samples[i]->size();
  // Each other stage's rounds over its own median (over the rounds stage i has), so that stages
  // of different lengths weigh alike in each round's median.
  std::vector<std::vector<double>> relative;
  for (size_t s = 0; s < samples.size(); ++s) {
    if (s == i || samples[s]->empty()) continue;
    const size_t n = std::min(rounds, samples[s]->size());
    std::vector<double> mine(samples[s]->begin(), samples[s]->begin() + static_cast<long>(n));
    const double median = summarize(mine).median;
    if (!(median > 0)) continue;
    for (double& t : mine) t /= median;
    relative.push_back(std::move(mine));
  }
  std::vector<double> factors;
  for (size_t r = 0; r < rounds; ++r) {
    std::vector<double> round;
    for (const auto& rel : relative)
      if (r < rel.size()) round.push_back(rel[r]);
    if (round.empty()) break;  // no other stage reached this round
    factors.push_back(summarize(round).median);
  }
  return factors;
}

}  // namespace sb
