#include "models/ops/cpu/quantize.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "models/ops/cpu/parallel.h"

namespace sb::cpu {

void quantize_weights_s8(const float* w, int64_t n, int64_t k, int8_t* q, float* scales) {
  parallel_for(n, 2 * k, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float max_abs = Eigen::Map<const Eigen::ArrayXf>(w + r * k, k).abs().maxCoeff();
      const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
      scales[r] = scale;
      for (int64_t c = 0; c < k; ++c) {
        q[r * k + c] = static_cast<int8_t>(std::lrint(w[r * k + c] / scale));
      }
    }
  });
}

ActivationQuant quantize_activations_u8(const float* x, int64_t count, uint8_t* q) {
  float lo = 0.0f, hi = 0.0f;
  const int64_t chunk = 1 << 16, chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    Eigen::Map<const Eigen::ArrayXf> part(x + c * chunk, std::min(chunk, count - c * chunk));
    lo = std::min(lo, part.minCoeff());
    hi = std::max(hi, part.maxCoeff());
  }
  return quantize_activations_u8_range(x, count, lo, hi, q);
}

ActivationQuant quantize_activations_u8_range(const float* x, int64_t count, float lo, float hi,
                                              uint8_t* q) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  ActivationQuant a;
  a.scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  const float inv = 1.0f / a.scale;
  a.zero_point = std::clamp(static_cast<int32_t>(std::lrint(-lo * inv)), 0, 255);
  const float zp = static_cast<float>(a.zero_point);
  parallel_for(count, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const float v = std::clamp(x[i] * inv + zp, 0.0f, 255.0f);
      q[i] = static_cast<uint8_t>(static_cast<int32_t>(v + 0.5f));  // v >= 0: round half up
    }
  });
  return a;
}

}  // namespace sb::cpu
