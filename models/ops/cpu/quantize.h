#pragma once
// int8 quantization for the oneDNN int8 GEMM: symmetric s8 weights per output channel, and
// asymmetric u8 activations per tensor, over the input's own range each call (dynamic
// quantization) or over a range calibrated beforehand (static quantization).
#include <cstdint>

namespace sb::cpu {

// w [n, k] row-major -> q [n, k] with w ~= scales[r] * q, scales[r] = max|w_r| / 127.
void quantize_weights_s8(const float* w, int64_t n, int64_t k, int8_t* q, float* scales);

struct ActivationQuant {
  float scale;         // x ~= scale * (q - zero_point)
  int32_t zero_point;  // in [0, 255]; the code of x = 0, which stays exact
};

// x [count] -> q [count] over the range [min(x, 0), max(x, 0)] in 255 steps.
ActivationQuant quantize_activations_u8(const float* x, int64_t count, uint8_t* q);

// x [count] -> q [count] over the fixed range [min(lo, 0), max(hi, 0)] in 255 steps; values
// outside it clamp to its ends.
ActivationQuant quantize_activations_u8_range(const float* x, int64_t count, float lo, float hi,
                                              uint8_t* q);

}  // namespace sb::cpu
