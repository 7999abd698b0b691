// The OpenCL backend against naive double-precision references, on the default device (PoCL
// here). One backend for the whole binary, so each program is built once.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/weight_convert.h"
#include "tests/ops/reference.h"

namespace sb {
namespace {

using Vec = std::vector<float>;
using sb::testing::act_ref;
using sb::testing::random_vec;
using DVec = std::vector<double>;

OpenCLBackend* shared_backend() {
  static std::unique_ptr<Backend> backend = [] {
    try {
      return make_opencl_backend("");
    } catch (const std::exception&) {
      return std::unique_ptr<Backend>();
    }
  }();
  return static_cast<OpenCLBackend*>(backend.get());
}

double max_abs_diff(const Vec& got, const DVec& want) {
  EXPECT_EQ(got.size(), want.size());
  double m = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    m = std::max(m, std::fabs(got[i] - want[i]));
  return m;
}

double rel_l2(const Vec& got, const DVec& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

double cosine(const Vec& got, const DVec& want) {
  double dot = 0, a = 0, b = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    dot += got[i] * want[i];
    a += double(got[i]) * got[i];
    b += want[i] * want[i];
  }
  return dot / std::sqrt(a * b);
}

// y = residual + act(x W^T + bias), all [M, N] row-major.
DVec linear_ref(const Vec& x, const Vec& w, int64_t m, int64_t n, int64_t k, const Vec* bias,
                Act act, const Vec* residual) {
  DVec y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += double(x[i * k + p]) * w[j * k + p];
      if (bias) s += (*bias)[j];
      s = act_ref(act, s);
      if (residual) s += (*residual)[i * n + j];
      y[i * n + j] = s;
    }
  return y;
}

class OpenCLOps : public ::testing::Test {
 protected:
  void SetUp() override {
    be = shared_backend();
    if (!be) GTEST_SKIP() << "no OpenCL device:\n" << list_opencl_devices();
  }
  Tensor up(const Vec& v, std::vector<int64_t> shape) { return be->upload(v, std::move(shape)); }
  Vec down(const Tensor& t) { return be->download(t); }

  OpenCLBackend* be = nullptr;
};

TEST(OpenCLDeviceSelect, UnknownFilterThrowsNamingIt) {
  try {
    make_opencl_backend("no-such-device");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-device"), std::string::npos) << e.what();
  }
}

TEST(OpenCLWeightConvert, HalfRoundsToNearestEven) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);                      // ties up to inf
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);      // smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);      // tie -> even (0)
  EXPECT_EQ(float_to_half_bits(3 * std::ldexp(1.0f, -25)), 0x0002);  // 1.5 units -> 2
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);      // smallest normal
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(float_to_half_bits(std::nanf("")) & 0x03ff, 0);
  for (float v : {1.0f, -0.5f, 0.1f, 65504.0f, std::ldexp(3.0f, -24)})
    EXPECT_NEAR(half_bits_to_float(float_to_half_bits(v)), v, std::fabs(v) * 1e-3);
}

TEST_F(OpenCLOps, UploadDownloadRoundTripAndTracker) {
  const uint64_t before = be->memory().device->live();
  {
    Vec v = random_vec(37, 1);
    Tensor t = up(v, {37});
    EXPECT_EQ(be->memory().device->live(), before + 37 * 4);
    EXPECT_EQ(down(t), v);
    Tensor h = be->empty({3, 5}, DType::f16);
    EXPECT_EQ(be->memory().device->live(), before + 37 * 4 + 30);
    EXPECT_THROW(down(h), std::invalid_argument);
  }
  EXPECT_EQ(be->memory().device->live(), before);
  // The freed buffers wait in the pool and serve the next allocation of their size.
  const uint64_t pooled = be->pooled_bytes();
  EXPECT_GE(pooled, 37u * 4 + 30);
  Tensor again = be->empty({37});
  EXPECT_EQ(be->pooled_bytes(), pooled - 37 * 4);
  EXPECT_THROW(up(Vec(5), {2, 3}), std::invalid_argument);
}

TEST_F(OpenCLOps, PrecisionSupport) {
  EXPECT_EQ(be->unsupported_reason(Precision::f32), "");
  EXPECT_EQ(be->unsupported_reason(Precision::f16), "");
  EXPECT_EQ(be->unsupported_reason(Precision::int8), "");
  EXPECT_EQ(be->unsupported_reason(Precision::bf16), "use fp16 on OpenCL");
  if (!be->has_mma()) {
    EXPECT_NE(be->unsupported_reason(Precision::tf32), "");
    EXPECT_THROW(be->prepare_weight(Vec(6), 2, 3, Precision::tf32), std::invalid_argument);
  }
  EXPECT_THROW(be->prepare_weight(Vec(6), 2, 3, Precision::bf16), std::invalid_argument);
}

struct EpilogueCase {
  bool bias;
  Act act;
  bool residual;
  bool residual_is_y;
};

TEST_F(OpenCLOps, LinearF32EachEpilogue) {
  const int64_t m = 2 * 7, n = 19, k = 13;
  const Vec xh = random_vec(m * k, 2), wh = random_vec(n * k, 3), bh = random_vec(n, 4);
  const Vec rh = random_vec(m * n, 5);
  Tensor x = up(xh, {2, 7, k});
  Tensor bias = up(bh, {n});
  const Weight w = be->prepare_weight(wh, n, k, Precision::f32);
  const EpilogueCase cases[] = {
      {false, Act::none, false, false},   {true, Act::none, false, false},
      {true, Act::relu, false, false},    {false, Act::gelu, false, false},
      {true, Act::softplus, true, false}, {true, Act::none, true, true},
      {false, Act::none, true, true},     {true, Act::gelu, true, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "bias " << c.bias << " act " << int(c.act) << " residual "
                                      << c.residual << " aliased " << c.residual_is_y);
    // y starts as NaN (or as the residual when aliased): a GEMM with beta = 0 must not read it.
    Tensor y = up(c.residual_is_y ? rh : Vec(m * n, std::nanf("")), {2, 7, n});
    Tensor residual = up(rh, {m, n});
    Epilogue ep;
    ep.bias = c.bias ? &bias : nullptr;
    ep.act = c.act;
    ep.residual = c.residual ? (c.residual_is_y ? &y : &residual) : nullptr;
    be->linear(x, w, y, ep);
    const DVec want =
        linear_ref(xh, wh, m, n, k, c.bias ? &bh : nullptr, c.act, c.residual ? &rh : nullptr);
    EXPECT_LT(max_abs_diff(down(y), want), 1e-4);
  }
}

TEST_F(OpenCLOps, LinearF16AndInt8Weights) {
  // Sizes cross the 64 x 64 tiles and the 16-wide K steps.
  const int64_t m = 70, n = 67, k = 45;
  const Vec xh = random_vec(m * k, 6), wh = random_vec(n * k, 7), bh = random_vec(n, 8);
  const Vec rh = random_vec(m * n, 9);
  Tensor x = up(xh, {m, k}), bias = up(bh, {n}), residual = up(rh, {m, n});
  const DVec want = linear_ref(xh, wh, m, n, k, &bh, Act::gelu, &rh);
  for (Precision p : {Precision::f16, Precision::int8}) {
    SCOPED_TRACE(precision_name(p));
    const Weight w = be->prepare_weight(wh, n, k, p);
    EXPECT_EQ(w.data.dtype(), p == Precision::f16 ? DType::f16 : DType::i8);
    Tensor y = be->empty({m, n});
    be->linear(x, w, y, {&bias, Act::gelu, &residual});
    const Vec got = down(y);
    EXPECT_LT(rel_l2(got, want), 1e-2);
    EXPECT_GT(cosine(got, want), 0.99);
    // In place: residual is y itself.
    be->linear(x, w, residual, {&bias, Act::gelu, &residual});
    EXPECT_LT(rel_l2(down(residual), want), 1e-2);
    residual = up(rh, {m, n});
  }
}

// NVIDIA only: the inline-PTX tensor-core kernels (tf32, and f16 instead of the portable one).
TEST_F(OpenCLOps, LinearTensorCoreKernels) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  // Sizes cross the 64 x 64 tiles and the 32-wide K steps.
  const int64_t m = 70, n = 67, k = 45;
  const Vec xh = random_vec(m * k, 36), wh = random_vec(n * k, 37), bh = random_vec(n, 38);
  const Vec rh = random_vec(m * n, 39);
  Tensor x = up(xh, {m, k}), bias = up(bh, {n}), residual = up(rh, {m, n});
  const DVec want = linear_ref(xh, wh, m, n, k, &bh, Act::relu, &rh);
  const DVec plain = linear_ref(xh, wh, m, n, k, nullptr, Act::none, nullptr);
  for (Precision p : {Precision::tf32, Precision::f16}) {
    SCOPED_TRACE(precision_name(p));
    EXPECT_EQ(be->unsupported_reason(p), "");
    const Weight w = be->prepare_weight(wh, n, k, p);
    Tensor y = be->empty({m, n});
    be->linear(x, w, y);
    EXPECT_LT(rel_l2(down(y), plain), p == Precision::tf32 ? 2e-3 : 1e-2);
    be->linear(x, w, y, {&bias, Act::relu, &residual});
    EXPECT_LT(rel_l2(down(y), want), p == Precision::tf32 ? 2e-3 : 1e-2);
    EXPECT_GT(cosine(down(y), want), 0.999);
  }
}

TEST_F(OpenCLOps, CalibratedInt8TensorCores) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t m = 70, n = 67, k = 45;  // off the 128 x 128 tiles and the 32-wide K steps
  const Vec xh = random_vec(m * k, 46), wh = random_vec(n * k, 47), bh = random_vec(n, 48);
  Tensor x = up(xh, {m, k}), bias = up(bh, {n});
  Weight w = be->prepare_weight(wh, n, k, Precision::int8);
  w.input_lo = -1.f, w.input_hi = 1.f;  // the range random_vec draws from
  Tensor y = be->empty({m, n});
  be->linear(x, w, y, {&bias, Act::none, nullptr});
  const DVec want = linear_ref(xh, wh, m, n, k, &bh, Act::none, nullptr);
  EXPECT_LT(rel_l2(down(y), want), 2e-2);
  // A range of a tenth clips the inputs: the product must move far from the unclipped one.
  w.input_lo = -0.1f, w.input_hi = 0.1f;
  be->linear(x, w, y, {&bias, Act::none, nullptr});
  EXPECT_GT(rel_l2(down(y), want), 0.2);
}

TEST_F(OpenCLOps, AttentionFp16TensorCores) {
  if (!be->has_mma()) GTEST_SKIP() << be->device() << " has no mma.sync path";
  const int64_t batch = 2, n = 150, heads = 2, dh = 64, d = heads * dh;  // n off the tiles
  const Vec qkv = random_vec(batch * n * 3 * d, 49);
  Vec bias(batch * n, 0.f);
  for (int64_t j = 100; j < n; ++j) bias[n + j] = kMaskedLogit;  // the second cell is padded
  AttentionShape s{batch, n, heads, dh, 0.125f, 3 * d,         3 * d,
                   3 * d, d, 0,     d,  2 * d,  Precision::f16};
  Tensor packed = up(qkv, {batch, n, 3 * d}), key_bias = up(bias, {batch, n});
  Tensor out = be->empty({batch, n, d});
  be->attention_fused(s, packed, packed, packed, &key_bias, out);
  const DVec want = sb::testing::attention_ref(s, qkv, qkv, qkv, bias);
  EXPECT_LT(rel_l2(down(out), want), 5e-3);
  EXPECT_GT(cosine(down(out), want), 0.9999);
}

TEST_F(OpenCLOps, GemmBatchedWithOffsets) {
  // Two items, each A [m, k] with lda > k, at offsets inside one buffer.
  const int64_t m = 5, n = 7, k = 3, lda = 4;
  for (bool trans_b : {true, false}) {
    SCOPED_TRACE(trans_b ? "B^T" : "B");
    GemmBatch g;
    g.m = m, g.n = n, g.k = k, g.trans_b = trans_b, g.alpha = 0.5f;
    g.lda = lda, g.ldb = trans_b ? k + 2 : n + 1, g.ldc = n + 3;
    const int64_t a_size = m * lda, b_size = trans_b ? n * g.ldb : k * g.ldb, c_size = m * g.ldc;
    g.a_offsets = {1, 1 + a_size};
    g.b_offsets = {b_size + 2, 2};  // reversed order, on purpose
    g.c_offsets = {0, c_size};
    const Vec ah = random_vec(2 * a_size + 1, 10), bh = random_vec(2 * b_size + 2, 11);
    Tensor a = up(ah, {2 * a_size + 1}), b = up(bh, {2 * b_size + 2});
    Tensor c = up(Vec(2 * c_size, -7.0f), {2 * c_size});
    be->gemm_batched(g, a, b, c);
    const Vec got = down(c);
    for (int item = 0; item < 2; ++item)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < g.ldc; ++j) {
          const float value = got[g.c_offsets[item] + i * g.ldc + j];
          if (j >= n) {  // outside the matrix: untouched
            EXPECT_EQ(value, -7.0f);
            continue;
          }
          double s = 0;
          for (int64_t p = 0; p < k; ++p) {
            const double av = ah[g.a_offsets[item] + i * lda + p];
            const double bv = trans_b ? bh[g.b_offsets[item] + j * g.ldb + p]
                                      : bh[g.b_offsets[item] + p * g.ldb + j];
            s += av * bv;
          }
          EXPECT_NEAR(value, 0.5 * s, 1e-5) << "item " << item << " (" << i << ", " << j << ")";
        }
  }
  GemmBatch bad;
  bad.m = bad.n = bad.k = 2, bad.lda = bad.ldb = bad.ldc = 2;
  bad.a_offsets = {0}, bad.b_offsets = {0}, bad.c_offsets = {3};
  Tensor small = be->empty({4});
  EXPECT_THROW(be->gemm_batched(bad, small, small, small), std::invalid_argument);
}

TEST_F(OpenCLOps, Im2colWithAndWithoutTransform) {
  const int64_t batch = 2, length = 9, channels = 3;
  const int k = 5;
  const Vec xh = random_vec(batch * length * channels, 12);
  const Vec sh = random_vec(channels, 13, 0.5f, 1.5f), th = random_vec(channels, 14);
  Tensor x = up(xh, {batch, length, channels}), scale = up(sh, {channels}),
         shift = up(th, {channels});
  for (bool transform : {false, true}) {
    SCOPED_TRACE(transform ? "transformed" : "plain");
    Tensor cols = be->empty({batch * length, k * channels});
    InputTransform t;
    if (transform) t = {&scale, &shift, Act::gelu};
    be->im2col(x, k, cols, t);
    DVec want(cols.numel());
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t l = 0; l < length; ++l)
        for (int j = 0; j < k; ++j)
          for (int64_t c = 0; c < channels; ++c) {
            const int64_t src = l + j - k / 2;
            double v = 0;
            if (src >= 0 && src < length) {
              v = xh[(b * length + src) * channels + c];
              if (transform) v = act_ref(Act::gelu, v * sh[c] + th[c]);
            }
            want[(b * length + l) * k * channels + j * channels + c] = v;
          }
    EXPECT_LT(max_abs_diff(down(cols), want), 1e-6);
  }
}

TEST_F(OpenCLOps, CopyRows) {
  const Vec xh = random_vec(2 * 6 * 3, 15);
  Tensor x = up(xh, {2, 6, 3});
  Tensor y = be->empty({2, 4, 3});
  be->copy_rows(x, 1, y);
  DVec want;
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 3; ++c) want.push_back(xh[(b * 6 + 1 + r) * 3 + c]);
  EXPECT_EQ(max_abs_diff(down(y), want), 0.0);
  EXPECT_THROW(be->copy_rows(x, 3, y), std::invalid_argument);
}

TEST_F(OpenCLOps, Elementwise) {
  const int64_t rows = 5, channels = 7, n = rows * channels;
  const Vec ah = random_vec(n, 16, -4, 4), bh = random_vec(n, 17);
  const Vec sh = random_vec(channels, 18), th = random_vec(channels, 19);
  Tensor a = up(ah, {rows, channels}), b = up(bh, {rows, channels});
  Tensor scale = up(sh, {channels}), shift = up(th, {channels});
  Tensor y = be->empty({rows, channels});
  auto expect = [&](auto f, const char* what) {
    DVec want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = f(i);
    EXPECT_LT(max_abs_diff(down(y), want), 2e-6) << what;
  };
  be->affine_channels(a, &scale, &shift, y);
  expect([&](int64_t i) { return double(ah[i]) * sh[i % channels] + th[i % channels]; }, "affine");
  be->affine_channels(a, &scale, nullptr, y);
  expect([&](int64_t i) { return double(ah[i]) * sh[i % channels]; }, "scale only");
  be->affine_channels(a, nullptr, &shift, y);
  expect([&](int64_t i) { return double(ah[i]) + th[i % channels]; }, "shift only");
  be->sigmoid_scaled(a, 1.5f, y);
  expect([&](int64_t i) { return 1 / (1 + std::exp(-1.5 * ah[i])); }, "sigmoid_scaled");
  be->mul(a, b, y);
  expect([&](int64_t i) { return double(ah[i]) * bh[i]; }, "mul");
  be->add(a, b, y);
  expect([&](int64_t i) { return double(ah[i]) + bh[i]; }, "add");
  for (Act act : {Act::none, Act::relu, Act::gelu, Act::softplus}) {
    be->activation(a, act, y);
    expect([&](int64_t i) { return act_ref(act, ah[i]); }, "activation");
  }
  // y aliases x.
  Tensor inplace = up(ah, {rows, channels});
  be->activation(inplace, Act::relu, inplace);
  y = inplace;
  expect([&](int64_t i) { return act_ref(Act::relu, ah[i]); }, "in place");
  EXPECT_THROW(be->add(a, scale, y), std::invalid_argument);
}

TEST_F(OpenCLOps, LayerNormBothWays) {
  for (int64_t cols : {37, 300}) {  // fewer and more columns than a work-group has items
    const int64_t rows = 2 * 5;
    const Vec xh = random_vec(rows * cols, 20, 2.0f, 4.0f);  // offset mean: tests centring
    const Vec gh = random_vec(cols, 21), bh = random_vec(cols, 22);
    Tensor x = up(xh, {2, 5, cols}), gamma = up(gh, {cols}), beta = up(bh, {cols});
    DVec want(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += xh[r * cols + c];
      mean /= cols;
      for (int64_t c = 0; c < cols; ++c) var += std::pow(xh[r * cols + c] - mean, 2);
      var /= cols;
      for (int64_t c = 0; c < cols; ++c)
        want[r * cols + c] = (xh[r * cols + c] - mean) / std::sqrt(var + 1e-5) * gh[c] + bh[c];
    }
    for (bool one_pass : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "cols " << cols << " one_pass " << one_pass);
      Tensor y = be->empty({2, 5, cols});
      be->layernorm(x, gamma, beta, 1e-5f, y, one_pass);
      EXPECT_LT(max_abs_diff(down(y), want), 1e-4);
    }
  }
}

TEST_F(OpenCLOps, SoftmaxRows) {
  const int64_t rows = 6, cols = 300;
  const Vec xh = random_vec(rows * cols, 23, -20, 20);
  Tensor x = up(xh, {rows, cols});
  be->softmax_rows(x);
  DVec want(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -1e300, sum = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, double(xh[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xh[r * cols + c] - mx);
    for (int64_t c = 0; c < cols; ++c) want[r * cols + c] = std::exp(xh[r * cols + c] - mx) / sum;
  }
  EXPECT_LT(max_abs_diff(down(x), want), 1e-6);
}

TEST_F(OpenCLOps, AttentionPoolBothWays) {
  const int64_t batch = 2, length = 10, channels = 7, half = length / 2;
  const Vec xh = random_vec(batch * length * channels, 24);
  const Vec lh = random_vec(batch * length * channels, 25, -5, 5);
  Tensor x = up(xh, {batch, length, channels}), logits = up(lh, {batch, length, channels});
  DVec want(batch * half * channels);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t l = 0; l < half; ++l)
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t i0 = (b * length + 2 * l) * channels + c, i1 = i0 + channels;
        const double e0 = std::exp(lh[i0]), e1 = std::exp(lh[i1]);
        want[(b * half + l) * channels + c] = (xh[i0] * e0 + xh[i1] * e1) / (e0 + e1);
      }
  for (bool one_pass : {false, true}) {
    SCOPED_TRACE(one_pass ? "one pass" : "two passes");
    Tensor y = be->empty({batch, half, channels});
    be->attention_pool(x, logits, y, one_pass);
    EXPECT_LT(max_abs_diff(down(y), want), 1e-6);
  }
}

TEST_F(OpenCLOps, RelShiftAdd) {
  const int64_t bh = 4, n = 5;
  const Vec lh = random_vec(bh * n * n, 26), rh = random_vec(bh * n * (2 * n - 1), 27);
  Tensor logits = up(lh, {bh, n, n}), rel = up(rh, {bh, n, 2 * n - 1});
  be->rel_shift_add(logits, rel);
  DVec want(lh.size());
  for (int64_t h = 0; h < bh; ++h)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        want[(h * n + i) * n + j] =
            double(lh[(h * n + i) * n + j]) + rh[(h * n + i) * (2 * n - 1) + (n - 1) + (j - i)];
  EXPECT_LT(max_abs_diff(down(logits), want), 1e-6);
}

TEST_F(OpenCLOps, RelAttentionFusedMatchesUnfusedAndReference) {
  RelAttentionShape s;
  s.batch = 2, s.n = 37, s.heads = 2, s.dk = 16, s.dv = 24;
  const int64_t n = s.n, hk = s.heads * s.dk, hv = s.heads * s.dv;
  const Vec qh = random_vec(s.batch * n * hk, 28), kh = random_vec(s.batch * n * hk, 29);
  const Vec vh = random_vec(s.batch * n * hv, 30), relh = random_vec((2 * n - 1) * hk, 31);
  const Vec cbh = random_vec(hk, 32), pbh = random_vec(hk, 33);
  Tensor q = up(qh, {s.batch, n, hk}), k = up(kh, {s.batch, n, hk}), v = up(vh, {s.batch, n, hv});
  Tensor rel_k = up(relh, {2 * n - 1, hk}), cb = up(cbh, {hk}), pb = up(pbh, {hk});

  // Reference in double.
  DVec want(s.batch * n * hv);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < n; ++i) {
        DVec logit(n);
        double mx = -1e300;
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t d = 0; d < s.dk; ++d) {
            const double qv = qh[(b * n + i) * hk + h * s.dk + d];
            sum += (qv + cbh[h * s.dk + d]) * kh[(b * n + j) * hk + h * s.dk + d] +
                   (qv + pbh[h * s.dk + d]) * relh[(n - 1 + j - i) * hk + h * s.dk + d];
          }
          logit[j] = sum;
          mx = std::max(mx, sum);
        }
        double total = 0;
        for (auto& l : logit) total += (l = std::exp(l - mx));
        for (int64_t c = 0; c < s.dv; ++c) {
          double o = 0;
          for (int64_t j = 0; j < n; ++j) o += logit[j] * vh[(b * n + j) * hv + h * s.dv + c];
          want[(b * n + i) * hv + h * s.dv + c] = o / total;
        }
      }

  // Unfused, from the backend's own ops.
  Tensor qc = be->empty({s.batch, n, hk}), qp = be->empty({s.batch, n, hk});
  be->affine_channels(q, nullptr, &cb, qc);
  be->affine_channels(q, nullptr, &pb, qp);
  Tensor logits = be->empty({s.batch * s.heads, n, n});
  Tensor rel = be->empty({s.batch * s.heads, n, 2 * n - 1});
  GemmBatch content, position, weighted;
  content.m = n, content.n = n, content.k = s.dk, content.lda = hk, content.ldb = hk;
  content.ldc = n;
  position = content;
  position.n = 2 * n - 1, position.ldc = 2 * n - 1;
  weighted.m = n, weighted.n = s.dv, weighted.k = n, weighted.trans_b = false;
  weighted.lda = n, weighted.ldb = hv, weighted.ldc = hv;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t bh = b * s.heads + h;
      content.a_offsets.push_back(b * n * hk + h * s.dk);
      content.b_offsets.push_back(b * n * hk + h * s.dk);
      content.c_offsets.push_back(bh * n * n);
      position.a_offsets.push_back(b * n * hk + h * s.dk);
      position.b_offsets.push_back(h * s.dk);
      position.c_offsets.push_back(bh * n * (2 * n - 1));
      weighted.a_offsets.push_back(bh * n * n);
      weighted.b_offsets.push_back(b * n * hv + h * s.dv);
      weighted.c_offsets.push_back(b * n * hv + h * s.dv);
    }
  be->gemm_batched(content, qc, k, logits);
  be->gemm_batched(position, qp, rel_k, rel);
  be->rel_shift_add(logits, rel);
  be->softmax_rows(logits);
  Tensor unfused = be->empty({s.batch, n, hv});
  be->gemm_batched(weighted, logits, v, unfused);

  Tensor fused = be->empty({s.batch, n, hv});
  be->rel_attention_fused(s, q, k, v, rel_k, cb, pb, fused);

  const Vec got_fused = down(fused), got_unfused = down(unfused);
  EXPECT_LT(max_abs_diff(got_unfused, want), 1e-5);
  EXPECT_LT(max_abs_diff(got_fused, want), 1e-5);
  DVec unfused_d(got_unfused.begin(), got_unfused.end());
  EXPECT_LT(max_abs_diff(got_fused, unfused_d), 1e-5);
}

TEST_F(OpenCLOps, KernelLogTimesLaunchesAndTransfers) {
  KernelLog* log = be->kernel_log();
  ASSERT_NE(log, nullptr);
  log->clear();
  const Vec xh = random_vec(8 * 16, 34);
  Tensor x = up(xh, {8, 16});
  const Weight w = be->prepare_weight(random_vec(16 * 16, 35), 16, 16, Precision::f32);
  Tensor y = be->empty({8, 16});
  be->linear(x, w, y);
  be->softmax_rows(y);
  be->softmax_rows(y);
  be->synchronize();
  const auto& kernels = log->kernels();
  ASSERT_TRUE(kernels.count("softmax_rows"));
  EXPECT_EQ(kernels.at("softmax_rows").launches, 2u);
  EXPECT_GT(kernels.at("softmax_rows").total_ns, 0u);
  ASSERT_TRUE(kernels.count("clblast_gemm"));
  EXPECT_EQ(kernels.at("clblast_gemm").launches, 1u);
  EXPECT_GT(kernels.at("clblast_gemm").total_ns, 0u);
  EXPECT_EQ(log->h2d_bytes(), (8 * 16 + 16 * 16) * 4u);
  down(y);
  EXPECT_EQ(log->d2h_bytes(), 8 * 16 * 4u);
}

}  // namespace
}  // namespace sb
