#pragma once
// What both backends' op tests compare against: seeded random inputs and double-precision
// activations.
#include <algorithm>
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

// Masked multi-head attention in double, laid out as AttentionShape says (key_bias may be empty).
inline std::vector<double> attention_ref(const AttentionShape& s, const std::vector<float>& q,
                                         const std::vector<float>& k, const std::vector<float>& v,
                                         const std::vector<float>& key_bias) {
  std::vector<double> out(static_cast<size_t>(s.batch * s.n * s.ld_out), 0.0);
  std::vector<double> p(static_cast<size_t>(s.n));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.n; ++i) {
        const float* qi = &q[(b * s.n + i) * s.ld_q + s.q_col + h * s.dh];
        double mx = -1e300;
        for (int64_t j = 0; j < s.n; ++j) {
          const float* kj = &k[(b * s.n + j) * s.ld_k + s.k_col + h * s.dh];
          double dot = 0;
          for (int64_t d = 0; d < s.dh; ++d) dot += double(qi[d]) * kj[d];
          p[j] = s.scale * dot + (key_bias.empty() ? 0.0 : key_bias[b * s.n + j]);
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < s.n; ++j) sum += (p[j] = std::exp(p[j] - mx));
        double* o = &out[(b * s.n + i) * s.ld_out + h * s.dh];
        for (int64_t j = 0; j < s.n; ++j) {
          const float* vj = &v[(b * s.n + j) * s.ld_v + s.v_col + h * s.dh];
          for (int64_t d = 0; d < s.dh; ++d) o[d] += p[j] / sum * vj[d];
        }
      }
  return out;
}

}  // namespace sb::testing
