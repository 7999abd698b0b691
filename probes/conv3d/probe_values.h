// Inputs and sanity checks shared by conv3d_igemm_check's forward and backward checks.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace conv3d_probe {

inline std::vector<float> random_values(size_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

inline bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

}  // namespace conv3d_probe
