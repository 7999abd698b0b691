#include "models/ops/opencl/weight_convert.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace sb {

uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds past the largest half
  if (abs < 0x38800000u) {
    // Below 2^-14 the half is subnormal: its bits are the value in units of 2^-24. Scaling by
    // 2^24 is exact, and nearbyint rounds to nearest even in the default rounding mode.
    const float units = std::bit_cast<float>(abs) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(units));
  }
  // Rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits, ties to even;
  // a carry out of the mantissa correctly bumps the exponent.
  const uint32_t rebiased = abs - (112u << 23);
  const uint32_t rounded = rebiased + 0x0fffu + ((rebiased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

QuantizedRows quantize_rows_int8(std::span<const float> w, int64_t n, int64_t k) {
  if (static_cast<int64_t>(w.size()) != n * k)
    throw std::invalid_argument("quantize_rows_int8: weight has " + std::to_string(w.size()) +
                                " values, expected n*k = " + std::to_string(n * k));
  QuantizedRows q;
  q.values.resize(w.size());
  q.scales.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    const float* row = w.data() + r * k;
    float max_abs = 0.0f;
    for (int64_t c = 0; c < k; ++c) max_abs = std::max(max_abs, std::fabs(row[c]));
    const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    q.scales[r] = scale;
    for (int64_t c = 0; c < k; ++c) {
      const float v = std::nearbyint(row[c] / scale);
      q.values[r * k + c] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
    }
  }
  return q;
}

}  // namespace sb
