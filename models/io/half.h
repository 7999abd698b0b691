#pragma once

#include <cstdint>
#include <span>

// Conversions between fp32 and the two 16-bit float formats stored in weight files.
// Narrowing rounds to nearest, ties to even; Inf stays Inf, NaN stays NaN (quiet, sign and top
// payload bits kept), values past the format's range become Inf, tiny values become subnormals.
namespace sb {

uint16_t fp32_to_fp16(float value);
float fp16_to_fp32(uint16_t bits);
uint16_t fp32_to_bf16(float value);
float bf16_to_fp32(uint16_t bits);

// Bulk forms; the spans must have equal sizes (throws std::invalid_argument otherwise).
void fp32_to_fp16(std::span<const float> in, std::span<uint16_t> out);
void fp16_to_fp32(std::span<const uint16_t> in, std::span<float> out);
void fp32_to_bf16(std::span<const float> in, std::span<uint16_t> out);
void bf16_to_fp32(std::span<const uint16_t> in, std::span<float> out);

}  // namespace sb
