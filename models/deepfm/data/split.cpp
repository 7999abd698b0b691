#include "models/deepfm/data/split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/deepfm/data/rng.h"

namespace sb::deepfm {

Split stratified_split(std::span<const int32_t> labels, int classes, double test_fraction,
                       uint64_t seed) {
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(classes));
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= classes)
      throw std::invalid_argument("stratified_split: label " + std::to_string(labels[i]) +
                                  " at row " + std::to_string(i) + " outside [0, " +
                                  std::to_string(classes) + ")");
    members[static_cast<size_t>(labels[i])].push_back(static_cast<int64_t>(i));
  }

  // Largest remainder: floors first, then the rows left to the largest fractional parts (ties to
  // the lower class, for determinism).
  const auto total = static_cast<int64_t>(std::llround(test_fraction * labels.size()));
  std::vector<int64_t> take(members.size());
  std::vector<double> remainder(members.size());
  int64_t assigned = 0;
  for (size_t c = 0; c < members.size(); ++c) {
    const double ideal = test_fraction * static_cast<double>(members[c].size());
    take[c] = static_cast<int64_t>(std::floor(ideal));
    remainder[c] = ideal - static_cast<double>(take[c]);
    assigned += take[c];
  }
  std::vector<size_t> order(members.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t k = 0; assigned < total && k < order.size(); ++k) {
    const size_t c = order[k];
    if (take[c] < static_cast<int64_t>(members[c].size())) ++take[c], ++assigned;
  }

  Split s;
  for (size_t c = 0; c < members.size(); ++c) {
    Rng rng(mix_seed(seed, c));
    shuffle(std::span<int64_t>(members[c]), rng);
    s.test.insert(s.test.end(), members[c].begin(), members[c].begin() + take[c]);
    s.train.insert(s.train.end(), members[c].begin() + take[c], members[c].end());
  }
  std::sort(s.train.begin(), s.train.end());
  std::sort(s.test.begin(), s.test.end());
  return s;
}

std::vector<float> class_weights(std::span<const int32_t> labels, int classes) {
  std::vector<double> count(static_cast<size_t>(classes), 0.0);
  for (const int32_t l : labels)
    if (l >= 0 && l < classes) count[static_cast<size_t>(l)] += 1;
  std::vector<double> w(count.size());
  double sum = 0;
  for (size_t c = 0; c < w.size(); ++c) sum += w[c] = 1.0 / std::log(count[c] + 2.0);
  std::vector<float> out(w.size());
  for (size_t c = 0; c < w.size(); ++c)
    out[c] = static_cast<float>(w[c] * static_cast<double>(classes) / sum);
  return out;
}

}  // namespace sb::deepfm
