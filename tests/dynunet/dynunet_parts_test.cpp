// DynUNet's parts that need no backend: parameter names and count, the work counts, the
// synthetic volumes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/dynunet/counts.h"
#include "models/dynunet/params.h"
#include "models/dynunet/volumes.h"

namespace sb::dynunet {
namespace {

TEST(DynUnetParams, MonaiNamesAndTheDocumentedCounts) {
  const Params tiny = Params::random(config_for("tiny"), 1);
  EXPECT_NEAR(static_cast<double>(tiny.count()), 86e3, 1e3);  // docs/models.md: 86 k
  EXPECT_NEAR(static_cast<double>(Params::random(config_for("small"), 1).count()), 342e3, 2e3);
  EXPECT_EQ(tiny.at("upsamples.0.transp_conv.conv.weight").shape,
            (std::vector<int64_t>{32, 16, 2, 2, 2}));
  EXPECT_EQ(tiny.at("input_block.conv3.conv.weight").shape, (std::vector<int64_t>{8, 1, 1, 1, 1}));
  EXPECT_EQ(tiny.at("output_block.conv.conv.bias").values, std::vector<float>{0.f});
  EXPECT_EQ(tiny.at("bottleneck.norm2.weight").values, std::vector<float>(32, 1.f));
  // Kaiming-normal (a = 0.01): std sqrt(2 / fan_in), fan_in = 16 x 27 for bottleneck.conv1.
  double sq = 0;
  const auto& w = tiny.at("bottleneck.conv1.conv.weight").values;
  for (float v : w) sq += double(v) * v;
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(w.size())), std::sqrt(2.0 / (16 * 27)), 0.01);
}

TEST(DynUnetCounts, ForwardFlopsAsDocumented) {
  // docs/models.md: 0.10, 6.2 and 198 GFLOP per forward at tiny, small, full.
  EXPECT_NEAR(forward_counts(config_for("tiny")).flops / 1e9, 0.10, 0.01);
  EXPECT_NEAR(forward_counts(config_for("small")).flops / 1e9, 6.2, 0.1);
  EXPECT_NEAR(forward_counts(config_for("full")).flops / 1e9, 198, 3);
  const auto step = step_counts(config_for("small"));
  EXPECT_GT(step.flops, 2.8 * forward_counts(config_for("small")).flops);
  EXPECT_GT(step.bytes, forward_counts(config_for("small")).bytes);
}

TEST(DynUnetCounts, CheckpointingRecomputesTheBlocksForwards) {
  // Every block's forward again, not the output convolution (its logits are kept): the forward
  // less that 1x1x1 convolution's 2 x batch x voxels x filters[0] x classes.
  for (const char* size : {"tiny", "small"}) {
    const Config c = config_for(size);
    const double out =
        2.0 * static_cast<double>(c.batch * c.voxels() * c.filters[0] * c.out_channels);
    EXPECT_DOUBLE_EQ(recompute_counts(c).flops, forward_counts(c).flops - out) << size;
    EXPECT_GT(recompute_counts(c).flops, 0.99 * forward_counts(c).flops) << size;
  }
}

TEST(DynUnetVolumes, DeterministicLearnableBalls) {
  const int64_t p = 16, n = p * p * p;
  std::vector<float> a(2 * n), am(2 * n), b(n), bm(n);
  make_volumes(7, 0, 2, p, a, am);
  make_volumes(7, 1, 1, p, b, bm);  // sample 1 alone: the same as inside the batch
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin() + n));
  EXPECT_TRUE(std::equal(bm.begin(), bm.end(), am.begin() + n));
  double inside = 0, in_sum = 0, out_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    inside += am[i];
    (am[i] > 0 ? in_sum : out_sum) += a[i];
  }
  EXPECT_GT(inside, 0.005 * n);  // a ball of radius >= P/8
  EXPECT_LT(inside, 0.1 * n);
  EXPECT_GT(in_sum / inside, out_sum / (n - inside) + 0.4);  // brighter inside
  std::vector<float> small(10);
  EXPECT_THROW(make_volumes(7, 0, 1, p, small, small), std::invalid_argument);
}

}  // namespace
}  // namespace sb::dynunet
