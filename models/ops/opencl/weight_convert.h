#pragma once
// Host-side conversions done once when a weight is prepared.
#include <cstdint>
#include <span>
#include <vector>

namespace sb {

// IEEE binary16 bits of f, rounded to nearest even (overflow -> inf, NaN stays NaN).
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);

// Symmetric per-row int8 quantization of w [n, k]: q = round(w / scale[row]) clamped to
// [-127, 127], scale[row] = max|w[row, :]| / 127 (1 for an all-zero row).
struct QuantizedRows {
  std::vector<int8_t> values;
  std::vector<float> scales;
};
QuantizedRows quantize_rows_int8(std::span<const float> w, int64_t n, int64_t k);

}  // namespace sb
