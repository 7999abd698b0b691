// The f16 copies that an activation's producer writes beside it when a hold for f16 reads was
// noticed (models/ops/opencl/f16_activations.cpp, dfm35): the copy is the fp32 output's halves
// (rounded as the products' pack rounds), the fp32 output is the same bits with and without it,
// and the copy is gone after the release or without a notice. On any device with the images
// forced on; the NVIDIA LayerNorm only where it runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/io/half.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/reference.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

// Scoped: the fixture's backend is shared with every other OpenCL test.
struct ActivationImagesAnywhere {
  explicit ActivationImagesAnywhere(OpenCLBackend* be) : be(be) {
    be->write_f16_images_anywhere(true);
  }
  ~ActivationImagesAnywhere() { be->write_f16_images_anywhere(false); }
  OpenCLBackend* be;
};

// `produce` writes y; with a notice first, the held y has an f16 copy of y's halves and y is
// the bits it is without the notice.
void expect_f16_copy_of(OpenCLBackend* be, Tensor& y, const std::function<void(Tensor&)>& produce) {
  produce(y);
  const std::vector<float> plain = be->download(y);
  EXPECT_FALSE(be->held_f16_copy(y, y.numel()).defined()) << "no notice, no copy";
  be->will_hold_read_only(y, Precision::f16);
  produce(y);
  be->hold_read_only(y);
  const Tensor copy = be->held_f16_copy(y, y.numel());
  ASSERT_TRUE(copy.defined());
  EXPECT_FALSE(be->held_f16_copy(y, y.numel() - 1).defined()) << "a part is not the copy";
  const std::vector<float> fp32 = be->download(y), halves = be->download(copy);
  EXPECT_EQ(fp32, plain);
  size_t wrong = 0;
  for (size_t i = 0; i < fp32.size(); ++i)
    wrong += fp32_to_fp16(halves[i]) != fp32_to_fp16(fp32[i]) ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << fp32.size();
  be->release_read_only(y);
  EXPECT_FALSE(be->held_f16_copy(y, y.numel()).defined()) << "released";
}

TEST_F(OpsOpenCL, NoticedProducersWriteTheirActivationsF16Copy) {
  if (env_is("STAGEBENCH_F16_ACTIVATIONS", "off")) GTEST_SKIP() << "STAGEBENCH_F16_ACTIVATIONS=off";
  if (env_is("STAGEBENCH_F16_IMAGES", "off")) GTEST_SKIP() << "STAGEBENCH_F16_IMAGES=off";
  if (env_is("STAGEBENCH_CONV_BF16_REUSE", "off")) GTEST_SKIP() << "STAGEBENCH_CONV_BF16_REUSE=off";
  const ActivationImagesAnywhere anywhere(be);
  {
    SCOPED_TRACE("activation_dropout");
    const Tensor x = be->upload(random_vec(3 * 1001, 610, -3, 3), {3, 1001});
    Tensor y = be->empty({3, 1001});
    expect_f16_copy_of(be, y, [&](Tensor& out) {
      be->activation_dropout(x, Act::gelu_erf, DropoutKey{0.1f, 5, 6}, out);
    });
  }
  {
    SCOPED_TRACE("embedding");
    const Tensor table = be->upload(random_vec(10 * 24, 611), {10, 24});
    const Tensor ids = be->upload_ids(std::vector<int32_t>{3, 0, 9, 9, 1, 4}, {2, 3});
    Tensor y = be->empty({2, 3, 24});
    expect_f16_copy_of(be, y, [&](Tensor& out) { be->embedding(table, ids, nullptr, out); });
  }
  // The warp LayerNorm (NVIDIA; the only one that writes copies): DeepFM's width, 768.
  if (be->has_mma() && !env_is("STAGEBENCH_LAYERNORM_WARP", "off") &&
      !env_is("STAGEBENCH_ROW_KERNELS", "lanes")) {
    SCOPED_TRACE("layernorm");
    const Tensor x = be->upload(random_vec(37 * 768, 612), {37, 768});
    const Tensor gamma = be->upload(random_vec(768, 613), {768}),
                 beta = be->upload(random_vec(768, 614), {768});
    Tensor y = be->empty({37, 768});
    expect_f16_copy_of(be, y, [&](Tensor& out) { be->layernorm(x, gamma, beta, 1e-5f, out); });
  }
  EXPECT_EQ(be->held_tensors(), 0u);
}

}  // namespace
}  // namespace sb::testing
