#pragma once
// f32 -> bf16 conversion of GEMM operands, in parallel: the bf16 products' operands are packed
// once per call into dense buffers the matmul reads. Serial, this packing was the bf16 stage's
// cost at 16 threads (DeepFM's amp stage 0.70x of fp32 on the 16-core host, cpu29).
#include <cstdint>
#include <cstring>
#include <vector>

namespace sb::cpu {

// f32 -> bf16, rounding to nearest even; a NaN stays a quiet NaN. Branch-free, so that the
// packing loops vectorize.
inline uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet = (bits >> 16) | 0x40u;
  return static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}

// The f32 value of to_bf16(f): f rounded to bf16's 8-bit mantissa.
inline float round_to_bf16(float f) {
  const uint32_t bits = static_cast<uint32_t>(to_bf16(f)) << 16;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// Packs items of a rows x cols row-major matrix (leading dimension ld) starting at
// base + offsets[i], rounded to bf16, densely into out: item i at out + i * rows * cols, as
// [rows, cols], or with transpose as [cols, rows] (out[c * rows + r] = in[r * ld + c]).
void pack_bf16(const float* base, const std::vector<int64_t>& offsets, int64_t rows, int64_t cols,
               int64_t ld, bool transpose, uint16_t* out);
// The same, each value kept as the f32 it rounds to (round_to_bf16): bf16 products computed by
// an f32 GEMM, exact since the product of two bf16 values fits in an f32.
void pack_bf16(const float* base, const std::vector<int64_t>& offsets, int64_t rows, int64_t cols,
               int64_t ld, bool transpose, float* out);

}  // namespace sb::cpu
