#pragma once
// What both backends' op tests compare against: seeded random inputs and double-precision
// activations.
#include <cmath>
#include <random>
#include <vector>

#include "models/ops/backend.h"

namespace sb::testing {

inline std::vector<float> random_vec(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

inline double act_ref(Act a, double x) {
  switch (a) {
    case Act::none: return x;
    case Act::relu: return x > 0 ? x : 0;
    case Act::gelu: return x / (1 + std::exp(-1.702 * x));
    case Act::softplus: return std::log1p(std::exp(x));
  }
  return x;
}

}  // namespace sb::testing
