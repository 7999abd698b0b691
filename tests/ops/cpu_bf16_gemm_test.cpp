// The CPU's bf16 products (models/ops/cpu/bf16_pack.h, gemm_bf16.cpp, gemm_dnnl.cpp): operands
// rounded to bf16 once, in parallel, and every kernel choice (small items through the f32
// kernels, oneDNN writing C itself or through a scratch) giving the bf16 product itself: the
// double-precision product of the rounded operands, to f32 accumulation's error, far tighter
// than bf16's tolerance, so a path that skipped the rounding or misplaced alpha, beta or C's
// strides fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "models/ops/cpu/bf16_pack.h"
#include "models/ops/cpu/cpu_backend.h"
#ifdef STAGEBENCH_HAVE_DNNL
#include "models/ops/cpu/bf16_images.h"
#include "models/ops/cpu/gemm_dnnl.h"
#include "models/ops/cpu/host_storage.h"
#endif
#include "tests/ops/op_case.h"
#include "tests/ops/reference.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(OpsCpuBf16, RoundsToNearestEvenAndKeepsNaN) {
  // 1 + 2^-8 lies halfway between bf16's 1 and 1 + 2^-7: to the even one, 1. 1 + 3 * 2^-8 lies
  // halfway between 1 + 2^-7 and 1 + 2^-6: to the even one, 1 + 2^-6.
  EXPECT_EQ(cpu::to_bf16(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(cpu::to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(cpu::to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // above halfway: up
  EXPECT_EQ(cpu::to_bf16(-2.5f), 0xc020);
  EXPECT_TRUE(std::isnan(cpu::round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload lies only in the low bits would round to infinity without the quiet bit.
  EXPECT_TRUE(std::isnan(cpu::round_to_bf16(from_bits(0x7f800001u))));
  EXPECT_TRUE(std::isinf(cpu::round_to_bf16(std::numeric_limits<float>::infinity())));
}

// Items of a rows x cols matrix with a wider leading dimension, packed plain and transposed,
// large enough that the packing runs in parallel tasks.
TEST(OpsCpuBf16, PacksItemsDenselyPlainAndTransposed) {
  const int64_t rows = 37, cols = 300, ld = 311;
  const std::vector<int64_t> offsets{5 + rows * ld, 3};  // out of order, uneven
  const Vec in = random_vec(static_cast<size_t>(8 + 2 * rows * ld), 77, -3, 3);
  for (bool transpose : {false, true}) {
    std::vector<uint16_t> packed(2 * rows * cols);
    std::vector<float> packed_f32(packed.size());
    cpu::pack_bf16(in.data(), offsets, rows, cols, ld, transpose, packed.data());
    cpu::pack_bf16(in.data(), offsets, rows, cols, ld, transpose, packed_f32.data());
    for (int64_t it = 0; it < 2; ++it)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          const float v = in[offsets[it] + r * ld + c];
          const int64_t at = it * rows * cols + (transpose ? c * rows + r : r * cols + c);
          ASSERT_EQ(packed[at], cpu::to_bf16(v)) << it << " " << r << " " << c << " " << transpose;
          ASSERT_EQ(packed_f32[at], cpu::round_to_bf16(v));
        }
  }
}

struct Shape {
  const char* name;
  int64_t items, m, n, k;
  bool trans_a, trans_b, even_c;
  float alpha, beta;
};

TEST(OpsCpuBf16, EveryPathComputesTheBf16Product) {
  auto be = make_cpu_backend();
  if (!be->unsupported_reason(Precision::bf16).empty())
    GTEST_SKIP() << be->unsupported_reason(Precision::bf16);
  const Shape shapes[] = {
      // small items (the f32 kernels on rounded operands), DeepFM's attention shapes
      {"small_trans_b_uneven_c", 40, 4, 4, 32, false, true, false, 0.5f, 0.f},
      {"small_trans_a_beta_1", 40, 4, 32, 4, true, false, true, 1.f, 1.f},
      // one product: oneDNN writes C itself, with alpha and beta
      {"one_trans_a", 1, 70, 50, 40, true, false, true, 2.f, 0.5f},
      {"one_trans_b", 1, 64, 48, 96, false, true, true, 1.f, 0.f},
      // neither transposed (a linear layer's dx = dy W), as in the held-operand test below
      {"one_plain", 1, 96, 80, 48, false, false, true, 1.f, 0.f},
      // batched: C stepping evenly (direct) and unevenly (scratch, then the epilogue)
      {"batched_even_c_trans_b", 3, 48, 40, 36, false, true, true, 1.f, 1.f},
      {"batched_uneven_c_trans_a", 3, 48, 40, 36, true, false, false, 0.25f, 0.5f},
  };
  for (const Shape& s : shapes) {
    GemmBatch g;
    g.m = s.m, g.n = s.n, g.k = s.k, g.trans_a = s.trans_a, g.trans_b = s.trans_b;
    g.alpha = s.alpha, g.beta = s.beta, g.precision = Precision::bf16;
    const int64_t a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
    const int64_t b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
    g.lda = a_cols + 3, g.ldb = b_cols + 1, g.ldc = s.n + 5;
    const int64_t c_item = s.m * g.ldc;
    for (int64_t i = 0; i < s.items; ++i) {
      g.a_offsets.push_back(2 + i * a_rows * g.lda);
      g.b_offsets.push_back(1 + (s.items - 1 - i) * b_rows * g.ldb);
      // uneven: item i at 1 + i * c_item, plus one element more after the first
      g.c_offsets.push_back(1 + i * c_item + (s.even_c || i == 0 ? 0 : 7));
    }
    const Vec a = random_vec(static_cast<size_t>(4 + s.items * a_rows * g.lda), 90),
              b = random_vec(static_cast<size_t>(4 + s.items * b_rows * g.ldb), 91);
    Vec c0 = random_vec(static_cast<size_t>(16 + s.items * c_item), 92);
    DVec want = widen(c0);
    for (int64_t it = 0; it < s.items; ++it)
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0;
          for (int64_t q = 0; q < s.k; ++q) {
            const float av =
                s.trans_a ? a[g.a_offsets[it] + q * g.lda + i] : a[g.a_offsets[it] + i * g.lda + q];
            const float bv =
                s.trans_b ? b[g.b_offsets[it] + j * g.ldb + q] : b[g.b_offsets[it] + q * g.ldb + j];
            sum += double(cpu::round_to_bf16(av)) * cpu::round_to_bf16(bv);
          }
          const int64_t at = g.c_offsets[it] + i * g.ldc + j;
          want[at] = s.alpha * sum + (s.beta == 0 ? 0.0 : s.beta * double(c0[at]));
          if (s.beta == 0) c0[at] = std::nanf("");  // never read
        }
    Tensor ct = be->upload(c0, {static_cast<int64_t>(c0.size())});
    be->gemm_batched(g, be->upload(a, {static_cast<int64_t>(a.size())}),
                     be->upload(b, {static_cast<int64_t>(b.size())}), ct);
    // f32 accumulation over k <= 96 terms of size <= 1: well under 1e-5 (1 + |want|); an
    // unrounded operand moves a term by up to 2^-9 of itself.
    const std::string failure =
        compare({std::string("C ") + s.name, be->download(ct), want, Precision::f32, 1e-5});
    EXPECT_TRUE(failure.empty()) << failure;
  }
}

#ifdef STAGEBENCH_HAVE_DNNL
// A held tensor's image: its values as to_bf16 gives them, converted only where asked, gone at
// the last release and fresh at the next hold (a stale image would hand a product old values).
TEST(OpsCpuBf16, ImagesConvertHeldRangesOnlyAndForgetThemOnRelease) {
  cpu::Bf16Images images(std::make_shared<AllocationTracker>());
  if (!images.enabled()) GTEST_SKIP() << "STAGEBENCH_CPU_BF16_IMAGES=off";
  Vec x = random_vec(20000, 93, -3, 3);
  EXPECT_EQ(images.find(x.data() + 10, 100), nullptr);  // not held
  images.hold(x.data(), 20000);
  images.hold(x.data(), 20000);  // nested
  const uint16_t* got = images.find(x.data() + 5000, 300);
  ASSERT_NE(got, nullptr);
  for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(got[i], cpu::to_bf16(x[5000 + i])) << i;
  EXPECT_EQ(images.converted_blocks(), 1u);               // one block of 4,096 covers [5000, 5300)
  EXPECT_EQ(images.find(x.data() + 19990, 20), nullptr);  // past the held extent
  images.release(x.data());
  EXPECT_NE(images.find(x.data(), 10), nullptr);  // still held once
  images.release(x.data());
  EXPECT_EQ(images.find(x.data(), 10), nullptr);
  x[5001] = 7.0f;  // written between holds
  images.hold(x.data(), 20000);
  got = images.find(x.data() + 5000, 2);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got[1], cpu::to_bf16(7.0f));
  images.release(x.data());
}

// DeepFM's linear products at bf16 with their operands inside held tensors (a weight inside a
// flat parameter buffer, an activation): read from the images, the same bits as packed.
TEST(OpsCpuBf16, HeldOperandsGiveThePackedProductsBits) {
  auto be = make_cpu_backend();
  if (!be->unsupported_reason(Precision::bf16).empty())
    GTEST_SKIP() << be->unsupported_reason(Precision::bf16);
  const int64_t rows = 96, in = 80, out = 48, offset = 1000;
  const Vec x = random_vec(static_cast<size_t>(rows * in), 94),
            flat = random_vec(static_cast<size_t>(offset + out * in + 50), 95),
            dy = random_vec(static_cast<size_t>(rows * out), 96);
  const Tensor xt = be->upload(x, {rows, in}), ft = be->upload(flat, {int64_t(flat.size())}),
               dyt = be->upload(dy, {rows, out});
  GemmBatch fwd;  // y = x W^T, W at `offset` inside the flat buffer
  fwd.m = rows, fwd.n = out, fwd.k = in, fwd.trans_b = true, fwd.lda = in, fwd.ldb = in;
  fwd.ldc = out, fwd.a_offsets = {0}, fwd.b_offsets = {offset}, fwd.c_offsets = {0};
  fwd.precision = Precision::bf16;
  GemmBatch dw;  // dW = dy^T x
  dw.m = out, dw.n = in, dw.k = rows, dw.trans_a = true, dw.trans_b = false, dw.lda = out;
  dw.ldb = in;
  dw.ldc = in, dw.a_offsets = dw.b_offsets = dw.c_offsets = {0}, dw.precision = Precision::bf16;
  GemmBatch dx;  // dx = dy W
  dx.m = rows, dx.n = in, dx.k = out, dx.trans_b = false, dx.lda = out, dx.ldb = in, dx.ldc = in;
  dx.a_offsets = {0}, dx.b_offsets = {offset}, dx.c_offsets = {0}, dx.precision = Precision::bf16;
  auto run = [&](cpu::DnnlGemm& gemm) {
    std::vector<Vec> outs;
    Tensor y = be->upload(Vec(rows * out, 0.f), {rows, out}),
           dwt = be->upload(Vec(out * in, 0.f), {out, in}),
           dxt = be->upload(Vec(rows * in, 0.f), {rows, in});
    gemm.gemm_batched(fwd, xt, ft, y);
    gemm.gemm_batched(dw, dyt, xt, dwt);
    gemm.gemm_batched(dx, dyt, ft, dxt);
    for (const Tensor* t : {&y, &dwt, &dxt}) outs.push_back(be->download(*t));
    return outs;
  };
  cpu::DnnlGemm packed(std::make_shared<AllocationTracker>());
  const std::vector<Vec> want = run(packed);
  cpu::DnnlGemm held(std::make_shared<AllocationTracker>());
  held.hold_read_only(cpu::f32_data(ft, "flat"), ft.numel());
  held.hold_read_only(cpu::f32_data(xt, "x"), xt.numel());
  const std::vector<Vec> got = run(held);
  if (cpu::bf16_images_requested()) {
    EXPECT_GT(held.bf16_image_blocks(), 0u);
  }
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "product " << i;
  held.release_read_only(cpu::f32_data(ft, "flat"));
  held.release_read_only(cpu::f32_data(xt, "x"));
}
#endif

// A linear layer's product with its bias: added in oneDNN's epilogue (the default) or by the
// affine_channels pass after the product (STAGEBENCH_CPU_GEMM_BIAS=off), at fp32 and bf16: the
// same values (both add the bias once to the f32 result), and the bias's (a product without it
// differs).
TEST(OpsCpuBf16, BiasInTheEpilogueMatchesThePassAfter) {
  const int64_t m = 96, n = 80, k = 64;
  const Vec a = random_vec(m * k, 97), b = random_vec(n * k, 98), bias = random_vec(n, 99, 1, 2);
  for (Precision p : {Precision::f32, Precision::bf16}) {
    std::vector<Vec> outs;
    for (const char* knob : {"off", "on"}) {
      const ScopedEnv env("STAGEBENCH_CPU_GEMM_BIAS", knob);
      auto be = make_cpu_backend();
      if (!be->unsupported_reason(p).empty()) GTEST_SKIP() << be->unsupported_reason(p);
      GemmBatch g;
      g.m = m, g.n = n, g.k = k, g.trans_b = true, g.lda = k, g.ldb = k, g.ldc = n;
      g.a_offsets = g.b_offsets = g.c_offsets = {0}, g.precision = p;
      const Tensor bias_t = be->upload(bias, {n});
      g.bias = &bias_t;
      Tensor c = be->empty({m, n});
      be->gemm_batched(g, be->upload(a, {m * k}), be->upload(b, {n * k}), c);
      outs.push_back(be->download(c));
      if (std::string(knob) == "on") {
        g.bias = nullptr;
        Tensor plain = be->empty({m, n});
        be->gemm_batched(g, be->upload(a, {m * k}), be->upload(b, {n * k}), plain);
        const Vec pv = be->download(plain);
        for (int64_t i = 0; i < m * n; ++i)
          ASSERT_NEAR(outs.back()[i], pv[i] + bias[i % n], 1e-5f * (1 + std::fabs(pv[i]))) << i;
      }
    }
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_NEAR(outs[1][i], outs[0][i], 1e-6f * (1 + std::fabs(outs[0][i])))
          << precision_name(p) << " " << i;
  }
}

}  // namespace
}  // namespace sb::testing
