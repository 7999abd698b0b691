#include "models/io/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace sb {
namespace {

TEST(Half, KnownFp16Encodings) {
  EXPECT_EQ(fp32_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(fp32_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(fp32_to_fp16(65519.0f), 0x7bff);  // below the halfway point to 65536
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);  // the tie rounds to even: Inf
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(fp32_to_fp16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(fp32_to_fp16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: tie to even 2
  // 1 + 2^-11 is halfway between 1 and the next fp16; ties go to the even mantissa (1.0).
  EXPECT_EQ(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  const uint16_t nan = fp32_to_fp16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A signalling NaN whose payload lives only in low bits must not turn into Inf.
  EXPECT_NE(fp32_to_fp16(std::bit_cast<float>(0x7f800001u)) & 0x03ff, 0);
}

TEST(Half, EveryFp16RoundTripsThroughFp32) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = fp16_to_fp32(h);
    const bool is_nan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    ASSERT_EQ(std::isnan(f), is_nan) << std::hex << bits;
    if (!is_nan) {
      ASSERT_EQ(fp32_to_fp16(f), h) << std::hex << bits;
    }
  }
  EXPECT_EQ(fp16_to_fp32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_fp32(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(fp16_to_fp32(0x7bff), 65504.0f);
}

#if defined(__F16C__)
TEST(Half, MatchesHardwareConversionOnManyFloats) {
  // Every 97th fp32 bit pattern covers all binades, ties excepted; ties are checked above.
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 97) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(fp32_to_fp16(f), _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT)) << std::hex << bits;
  }
}
#endif

TEST(Half, Bf16RoundsToNearestEven) {
  EXPECT_EQ(fp32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(fp32_to_bf16(-1.0f), 0xbf80);
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(fp32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // overflows to Inf
  EXPECT_EQ(fp32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x00010000u)), 0x0001);  // subnormal kept
  const uint16_t nan = fp32_to_bf16(std::bit_cast<float>(0x7f800001u));
  EXPECT_TRUE(std::isnan(bf16_to_fp32(nan)));
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float f = bf16_to_fp32(b);
    if (!std::isnan(f)) {
      ASSERT_EQ(fp32_to_bf16(f), b) << std::hex << bits;
    }
  }
}

TEST(Half, BulkConversionChecksSizes) {
  const std::vector<float> in{0.5f, -3.0f, 1e-3f};
  std::vector<uint16_t> halves(3);
  std::vector<float> back(3);
  fp32_to_fp16(in, halves);
  fp16_to_fp32(halves, back);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(back[i], in[i], std::abs(in[i]) * 1e-3f);
  std::vector<uint16_t> short_out(2);
  EXPECT_THROW(fp32_to_bf16(in, short_out), std::invalid_argument);
}

}  // namespace
}  // namespace sb
