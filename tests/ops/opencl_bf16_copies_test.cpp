// The bf16 copies that instance norms write beside their fp32 outputs when a hold for bf16 reads
// was noticed (models/ops/opencl/bf16_copies.cpp, issue 27). On any device: the copy is forced
// on here (write_bf16_copies_anywhere), as PoCL's bf16 convolutions read fp32 and get none.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/io/half.h"
#include "tests/ops/opencl_fixture.h"
#include "tests/ops/reference.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

// Scoped: the fixture's backend is shared with every other OpenCL test.
struct CopiesAnywhere {
  explicit CopiesAnywhere(OpenCLBackend* be) : be(be) { be->write_bf16_copies_anywhere(true); }
  ~CopiesAnywhere() { be->write_bf16_copies_anywhere(was); }
  OpenCLBackend* be;
  // What the backend had: STAGEBENCH_CONV_BF16_PRODUCERS=anywhere (the Oclgrind pass) keeps on.
  bool was = env_is("STAGEBENCH_CONV_BF16_PRODUCERS", "anywhere");
};

// The kept copy's bits against the host's round-to-nearest-even of the fp32 output, element by
// element (the f16 download decodes the bits as halves: every bf16 value here is a normal half's
// bit pattern, so encoding back gives the bits exactly).
void expect_bf16_of(OpenCLBackend* be, const Tensor& held, const std::vector<float>& fp32) {
  const Tensor copy = be->held_bf16(held);
  ASSERT_TRUE(copy.defined());
  ASSERT_EQ(copy.numel(), static_cast<int64_t>(fp32.size()));
  const std::vector<float> bits = be->download(copy);
  size_t wrong = 0;
  for (size_t i = 0; i < fp32.size(); ++i)
    wrong += fp32_to_fp16(bits[i]) != fp32_to_bf16(fp32[i]) ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << fp32.size();
}

// Forward (residual, LeakyReLU, both layouts) and backward (in place, as DynUNet's residual
// branch): the fp32 output is the same bits with and without the copy, the copy is its bf16,
// and without a notice, or with one for another precision, the hold keeps no copy.
TEST_F(OpsOpenCL, NoticedInstanceNormsWriteTheirBf16Copy) {
  if (env_is("STAGEBENCH_CONV_BF16_PRODUCERS", "off"))
    GTEST_SKIP() << "STAGEBENCH_CONV_BF16_PRODUCERS=off";
  const CopiesAnywhere anywhere(be);
  const int64_t n = 2, c = 8, voxels = 5 * 6 * 7, count = n * c * voxels;
  const Tensor x = be->upload(random_vec(count, 501, -3.f, 5.f), {count});
  const std::vector<float> r = random_vec(count, 502), dy = random_vec(count, 503);
  const Tensor gamma = be->upload(random_vec(c, 504, 0.5f, 1.5f), {c});
  const Tensor beta = be->upload(random_vec(c, 505), {c});
  for (const Layout3d layout : {Layout3d::ndhwc, Layout3d::ncdhw}) {
    SCOPED_TRACE(layout == Layout3d::ndhwc ? "ndhwc" : "ncdhw");
    std::vector<float> plain[2], grad[2];
    for (int noticed = 0; noticed < 2; ++noticed) {
      Tensor y = be->empty({count}), dx = be->empty({count});
      Tensor dgamma = be->empty({c}), dbeta = be->empty({c});
      be->write(r, y);
      if (noticed) be->will_hold_read_only(y, Precision::bf16);
      be->instance_norm(x, layout, n, c, gamma, beta, 1e-5f, y, {&y, Act::leaky_relu});
      be->hold_read_only(y);
      plain[noticed] = be->download(y);
      if (noticed) {
        expect_bf16_of(be, y, plain[noticed]);
      } else {
        EXPECT_FALSE(be->held_bf16(y).defined());
      }
      be->release_read_only(y);
      be->write(dy, dx);
      be->will_hold_read_only(dx, noticed ? Precision::bf16 : Precision::f16);
      be->instance_norm_backward(x, layout, n, c, gamma, 1e-5f, dx, dx, dgamma, dbeta);
      be->hold_read_only(dx);
      grad[noticed] = be->download(dx);
      if (noticed) {
        expect_bf16_of(be, dx, grad[noticed]);
      } else {
        EXPECT_FALSE(be->held_bf16(dx).defined());
      }
      be->release_read_only(dx);
    }
    EXPECT_EQ(plain[0], plain[1]);
    EXPECT_EQ(grad[0], grad[1]);
  }
  EXPECT_EQ(be->held_tensors(), 0u);
}

// The axis-1 concat (DynUNet's decoder input): every part's columns in the copy.
TEST_F(OpsOpenCL, NoticedConcatWritesItsBf16Copy) {
  if (env_is("STAGEBENCH_CONV_BF16_PRODUCERS", "off"))
    GTEST_SKIP() << "STAGEBENCH_CONV_BF16_PRODUCERS=off";
  const CopiesAnywhere anywhere(be);
  const int64_t outer = 2 * 60, a_cols = 8, b_cols = 16;
  const Tensor a = be->upload(random_vec(outer * a_cols, 511, -40.f, 40.f), {outer * a_cols});
  const Tensor b = be->upload(random_vec(outer * b_cols, 512), {outer * b_cols});
  Tensor y = be->empty({outer * (a_cols + b_cols)});
  const Tensor* parts[] = {&a, &b};
  be->will_hold_read_only(y, Precision::bf16);
  be->concat_axis1(parts, outer, 1, y);
  be->hold_read_only(y);
  expect_bf16_of(be, y, be->download(y));
  be->release_read_only(y);
  EXPECT_EQ(be->held_tensors(), 0u);
}

// The f16 images AdamW writes of a held flat parameter's ranges (bf16_copies.cpp, DeepFM's f16
// products' weights): forced on here, as PoCL has no wgmma products to read them.
struct ImagesAnywhere {
  explicit ImagesAnywhere(OpenCLBackend* be) : be(be) { be->write_f16_images_anywhere(true); }
  ~ImagesAnywhere() { be->write_f16_images_anywhere(false); }
  OpenCLBackend* be;
};

// A range is wanted at its first read under a hold, written by the next noticed step, and read
// while held: the image is the f16 of the step's fp32 values (the same bits as without it), and
// nothing is returned for ranges not written, unaligned ones, after the release, or after an
// unnoticed step.
TEST_F(OpsOpenCL, NoticedAdamWWritesTheF16ImageOfAHeldRange) {
  if (env_is("STAGEBENCH_F16_IMAGES", "off")) GTEST_SKIP() << "STAGEBENCH_F16_IMAGES=off";
  if (env_is("STAGEBENCH_CONV_BF16_REUSE", "off")) GTEST_SKIP() << "STAGEBENCH_CONV_BF16_REUSE=off";
  const ImagesAnywhere anywhere(be);
  const std::vector<std::vector<int64_t>> shapes = {{3, 5}, {24, 40}, {7}};
  std::vector<Tensor> p[2], g, m[2], v[2];
  Tensor flat_p[2], flat_m[2], flat_v[2];
  Tensor flat_g = be->flat_parts(shapes, g);
  for (int i = 0; i < 2; ++i) {  // [0] with notices, [1] without: the same fp32 steps
    flat_p[i] = be->flat_parts(shapes, p[i]);
    flat_m[i] = be->flat_parts(shapes, m[i]);
    flat_v[i] = be->flat_parts(shapes, v[i]);
    for (size_t j = 0; j < shapes.size(); ++j)
      be->write(random_vec(p[i][j].numel(), 520 + j, -4.f, 4.f), p[i][j]);
  }
  const Tensor& w = p[0][1];
  const int64_t count = w.numel();
  AdamWStep s;
  s.lr = 0.05f;
  auto step = [&](bool noticed) {
    for (size_t j = 0; j < shapes.size(); ++j)
      be->write(random_vec(g[j].numel(), 530 + s.step * 7 + j), g[j]);
    if (noticed) be->will_hold_read_only(flat_p[0], Precision::f16);
    be->adamw(flat_p[0], flat_g, flat_m[0], flat_v[0], s);
    be->adamw(flat_p[1], flat_g, flat_m[1], flat_v[1], s);
    be->hold_read_only(flat_p[0]);
    ++s.step;
  };
  step(true);
  EXPECT_FALSE(be->held_f16_image(w, 0, count).defined());  // wanted from the next step
  be->release_read_only(flat_p[0]);
  step(true);
  const Tensor image = be->held_f16_image(w, 0, count);
  ASSERT_TRUE(image.defined());
  ASSERT_EQ(image.numel(), count);
  const std::vector<float> fp32 = be->download(w), halves = be->download(image);
  EXPECT_EQ(fp32, be->download(p[1][1]));
  size_t wrong = 0;
  for (size_t i = 0; i < fp32.size(); ++i)
    wrong += fp32_to_fp16(halves[i]) != fp32_to_fp16(fp32[i]) ? 1 : 0;
  EXPECT_EQ(wrong, 0u) << "of " << fp32.size();
  EXPECT_FALSE(be->held_f16_image(p[0][0], 0, 15).defined());   // not read before the step
  EXPECT_FALSE(be->held_f16_image(w, 1, count - 1).defined());  // not at a part's alignment
  be->release_read_only(flat_p[0]);
  EXPECT_FALSE(be->held_f16_image(w, 0, count).defined());
  step(false);
  EXPECT_FALSE(be->held_f16_image(w, 0, count).defined());  // stale: an unnoticed step
  be->release_read_only(flat_p[0]);
  EXPECT_EQ(be->held_tensors(), 0u);
}

}  // namespace
}  // namespace sb::testing
