// Enformer's sizes, parameter and FLOP counts against docs/models.md, and positional features.
#include <gtest/gtest.h>

#include <cmath>

#include "models/enformer/config.h"
#include "models/enformer/counts.h"
#include "models/enformer/params.h"
#include "models/enformer/positional.h"

namespace sb::enformer {
namespace {

int64_t spec_parameters(const Config& c) {
  int64_t n = 0;
  for (const auto& s : param_specs(c)) {
    if (s.name.find("running_") != std::string::npos) continue;
    int64_t k = 1;
    for (int64_t d : s.shape) k *= d;
    n += k;
  }
  return n;
}

TEST(EnformerConfig, FiltersMatchTheReferenceRamp) {
  EXPECT_EQ(config_for("full").filters(),
            (std::vector<int64_t>{768, 768, 896, 1024, 1152, 1280, 1536}));
  EXPECT_EQ(config_for("small").filters().back(), 384);
  EXPECT_EQ(config_for("tiny").tokens(), 32);
  EXPECT_THROW(config_for("huge"), std::invalid_argument);
}

TEST(EnformerConfig, ParameterCountsMatchModelsMd) {
  EXPECT_NEAR(spec_parameters(config_for("tiny")) / 1e6, 0.37, 0.01);
  EXPECT_NEAR(spec_parameters(config_for("small")) / 1e6, 13.3, 0.1);
  EXPECT_NEAR(spec_parameters(config_for("full")) / 1e6, 251.2, 0.5);
}

TEST(EnformerConfig, FlopCountsMatchModelsMd) {
  EXPECT_NEAR(forward_counts(config_for("tiny"), Precision::f32).flops / 1e9, 0.23, 0.01);
  EXPECT_NEAR(forward_counts(config_for("small"), Precision::f32).flops / 1e9, 30.6, 0.3);
  EXPECT_NEAR(forward_counts(config_for("full"), Precision::f32).flops / 1e12, 3.29, 0.03);
}

TEST(EnformerPositional, FeaturesHaveTheReferenceStructure) {
  const int64_t n = 32, r = 48, k = r / 6;
  const auto f = positional_features(n, r);
  ASSERT_EQ(f.size(), static_cast<size_t>((2 * n - 1) * r));
  const float* centre = f.data() + (n - 1) * r;                                 // distance 0
  for (int64_t j = 0; j < k; ++j) EXPECT_FLOAT_EQ(centre[j], 1.f);              // exp(0)
  for (int64_t j = 0; j < k; ++j) EXPECT_FLOAT_EQ(centre[k + j], 1.f);          // 2^(j+1)-1 > 0
  for (int64_t j = 0; j < 3 * k; ++j) EXPECT_FLOAT_EQ(centre[3 * k + j], 0.f);  // sign(0)
  const float* left = f.data() + (n - 1 - 5) * r;                               // distance -5
  const float* right = f.data() + (n - 1 + 5) * r;
  for (int64_t j = 0; j < 3 * k; ++j) {
    EXPECT_FLOAT_EQ(left[j], right[j]);          // symmetric in |d|
    EXPECT_FLOAT_EQ(left[3 * k + j], -left[j]);  // times sign(d)
    EXPECT_FLOAT_EQ(right[3 * k + j], right[j]);
  }
  EXPECT_EQ(right[k + 0], 0.f);  // 2^1 - 1 = 1 is not > 5
  EXPECT_EQ(right[k + 2], 1.f);  // 2^3 - 1 = 7 > 5
  float gmax = 0;
  for (int64_t j = 0; j < k; ++j) gmax = std::max(gmax, right[2 * k + j]);
  EXPECT_FLOAT_EQ(gmax, 1.f);  // gamma family normalised by its row maximum
}

}  // namespace
}  // namespace sb::enformer
