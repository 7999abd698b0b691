#include "models/io/half.h"

#include <bit>
#include <stdexcept>
#include <string>

namespace sb {
namespace {

constexpr uint32_t kFp32ExpMask = 0x7f800000u;
constexpr uint32_t kFp32AbsMask = 0x7fffffffu;
constexpr uint16_t kFp16Inf = 0x7c00u;
constexpr uint16_t kFp16QuietBit = 0x0200u;
// |x| at or above 65520 (halfway between fp16 max 65504 and 65536) rounds to Inf.
constexpr uint32_t kFp16OverflowThreshold = 0x477ff000u;
// 2^-14, the smallest normal fp16.
constexpr uint32_t kFp16MinNormal = 0x38800000u;
// fp32 biased exponent minus fp16 biased exponent (127 - 15).
constexpr uint32_t kExpBiasDelta = 112;

// Shifts right by `shift` (1..31) rounding to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

void check_sizes(size_t in, size_t out) {
  if (in != out) {
    throw std::invalid_argument("half conversion: input has " + std::to_string(in) +
                                " elements but output has " + std::to_string(out));
  }
}

}  // namespace

uint16_t fp32_to_fp16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & kFp32AbsMask;
  if (abs >= kFp32ExpMask) {  // Inf or NaN
    if (abs == kFp32ExpMask) return sign | kFp16Inf;
    return static_cast<uint16_t>(sign | kFp16Inf | kFp16QuietBit | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= kFp16OverflowThreshold) return sign | kFp16Inf;
  if (abs >= kFp16MinNormal) {
    // Rounding may carry into the exponent, which is the correct next binade.
    return static_cast<uint16_t>(sign | (shift_round_even(abs, 13) - (kExpBiasDelta << 10)));
  }
  const uint32_t exponent = abs >> 23;
  // Below 2^-25 (or exactly it, a tie to even zero) the value rounds to zero.
  if (exponent < 102) return sign;
  const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
  // A subnormal fp16 counts units of 2^-24; 126 - exponent converts the fp32 mantissa to them.
  // A carry to 0x400 is the encoding of the smallest normal, as it should be.
  return static_cast<uint16_t>(sign | shift_round_even(mantissa, static_cast<int>(126 - exponent)));
}

float fp16_to_fp32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | kFp32ExpMask | (mantissa << 13));
  if (exponent != 0) {
    return std::bit_cast<float>(sign | ((exponent + kExpBiasDelta) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);
  uint32_t fp32_exponent = kExpBiasDelta + 1;  // 2^-14, the subnormals' scale
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --fp32_exponent;
  }
  return std::bit_cast<float>(sign | (fp32_exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

uint16_t fp32_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & kFp32AbsMask) > kFp32ExpMask) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN: keep it quiet and non-zero
  }
  // Adding 0x7fff plus the kept LSB rounds ties to even; overflow lands on Inf by construction.
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float bf16_to_fp32(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

void fp32_to_fp16(std::span<const float> in, std::span<uint16_t> out) {
  check_sizes(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = fp32_to_fp16(in[i]);
}

void fp16_to_fp32(std::span<const uint16_t> in, std::span<float> out) {
  check_sizes(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = fp16_to_fp32(in[i]);
}

void fp32_to_bf16(std::span<const float> in, std::span<uint16_t> out) {
  check_sizes(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = fp32_to_bf16(in[i]);
}

void bf16_to_fp32(std::span<const uint16_t> in, std::span<float> out) {
  check_sizes(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = bf16_to_fp32(in[i]);
}

}  // namespace sb
